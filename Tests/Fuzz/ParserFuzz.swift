// libFuzzer target: nexusctl's argument parser (`Parser.parse` over `CommandTable.all`), and
// the part of `NexusCLI.run` that needs neither a profile nor a server: parse errors,
// --help and --version. Built by Tests/Fuzz/build.sh.
//
// The input is an argv without the program name: arguments separated by NUL bytes (which
// a real argv can't contain), each decoded as UTF-8 with invalid bytes replaced, as
// CommandLine.arguments does. The empty input is the empty argv; "a\0" is ["a", ""].
//
// Besides "does not crash", it traps when:
//   - a parse's command path does not name commands of the table, or its spec is not
//     the one the path names;
//   - a flag or value is stored under a name that is not an option of the path's commands
//     (or a global option), or under the wrong kind;
//   - an argument or option value is not (a suffix of) an argv element;
//   - the argument count is outside the command's range without --help or --version;
//   - parsing is not deterministic, or the invocation written back in canonical form
//     (long options spelled out, `--`, then the arguments) parses differently;
//   - an error has an empty message or hint, or suggests a command or option that does
//     not exist;
//   - `NexusCLI.run` does not turn a parse error into exit 2 with the message on stderr
//     and nothing on stdout, or help/version into exit 0 with text on stdout only (or a
//     usage error, exit 2 on stderr only, from a check after parsing such as --fields).
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NexusCLI

private func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz invariant: \(message())") }
}

private let parser = Parser(commands: CommandTable.all)

private func argv(_ bytes: UnsafeRawBufferPointer) -> [String] {
    if bytes.isEmpty { return [] }
    return bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
}

/// The specs the path walks through, or nil when a word names no subcommand.
private func specs(along path: [String]) -> [CommandSpec]? {
    var result: [CommandSpec] = []
    var level = CommandTable.all
    for word in path {
        guard let spec = level.first(where: { $0.name == word }) else { return nil }
        result.append(spec)
        level = spec.subcommands
    }
    return result
}

/// The option a long name means exactly once `depth` command words have been read.
private func option(_ name: String, at depth: Int, _ chain: [CommandSpec]) -> OptionSpec? {
    let own = depth == 0 ? [] : chain[depth - 1].options
    return (own + GlobalOptions.all).first(where: { $0.name == name })
}

private func every(_ commands: [CommandSpec]) -> [CommandSpec] {
    commands.flatMap { [$0] + every($0.subcommands) }
}

private let allOptionNames: Set<String> = {
    let options = every(CommandTable.all).flatMap(\.options) + GlobalOptions.all
    return Set(options.map(\.name) + options.filter { !$0.takesValue }.map { "no-" + $0.name })
}()

private let allCommandNames = Set(every(CommandTable.all).map(\.name))

private func scalars(_ s: String) -> [Unicode.Scalar] { Array(s.unicodeScalars) }

private func isSuffixOfSomeArgument(_ value: String, _ args: [String]) -> Bool {
    let v = scalars(value)
    return args.contains { scalars($0).reversed().starts(with: v.reversed()) }
}

private func contains(_ haystack: String, _ needle: String) -> Bool {
    let h = Array(haystack.utf8), n = Array(needle.utf8)
    if n.isEmpty { return true }
    if n.count > h.count { return false }
    for i in 0...(h.count - n.count) where h[i] == n[0] && Array(h[i..<(i + n.count)]) == n { return true }
    return false
}

private func checkParsed(_ invocation: Invocation, _ spec: CommandSpec?, _ args: [String]) {
    guard let chain = specs(along: invocation.path) else {
        check(false, "path \(invocation.path) does not name commands")
        return
    }
    check(spec?.name == chain.last?.name, "spec \(spec?.name ?? "nil") for path \(invocation.path)")
    check(invocation.path.count <= args.count, "more command words than arguments")

    // Every stored option is an option, of the right kind, at some depth along the path;
    // remember the deepest such depth to write the option back there.
    var flagDepth: [String: Int] = [:]
    var valueDepth: [String: Int] = [:]
    for depth in 0...chain.count {
        for name in invocation.flags.keys where option(name, at: depth, chain).map({ !$0.takesValue }) == true {
            flagDepth[name] = depth
        }
        for name in invocation.values.keys where option(name, at: depth, chain)?.takesValue == true {
            valueDepth[name] = depth
        }
    }
    for name in invocation.flags.keys { check(flagDepth[name] != nil, "flag '\(name)' is not a flag of \(invocation.path)") }
    for (name, values) in invocation.values {
        check(valueDepth[name] != nil, "value '\(name)' is not an option of \(invocation.path)")
        check(!values.isEmpty, "option '\(name)' stored with no value")
        for v in values { check(isSuffixOfSomeArgument(v, args), "value '\(v)' of --\(name) comes from no argument") }
    }
    for a in invocation.arguments { check(args.contains(a), "argument '\(a)' is not in argv") }

    if let spec, !invocation[GlobalOptions.help], !invocation[GlobalOptions.version] {
        check(spec.arguments.contains(invocation.arguments.count), "\(invocation.arguments.count) arguments for '\(spec.name)'")
    }

    // Canonical form: each command word followed by the options read at its depth, in
    // full; then `--` and the arguments. It must mean the same.
    var canonical: [String] = []
    for depth in 0...chain.count {
        if depth > 0 { canonical.append(invocation.path[depth - 1]) }
        for (name, on) in invocation.flags.sorted(by: { $0.key < $1.key }) where flagDepth[name] == depth {
            canonical.append(on ? "--\(name)" : "--no-\(name)")
        }
        for (name, values) in invocation.values.sorted(by: { $0.key < $1.key }) where valueDepth[name] == depth {
            canonical += values.map { "--\(name)=\($0)" }
        }
    }
    canonical.append("--")
    canonical += invocation.arguments
    do {
        let (again, againSpec) = try parser.parse(canonical)
        check(again == invocation, "canonical form \(canonical) parses to \(again), not \(invocation)")
        check(againSpec?.name == spec?.name, "canonical form \(canonical) names another command")
    } catch {
        check(false, "canonical form \(canonical) of \(args) fails: \(error)")
    }
}

private func checkError(_ error: ParseError) {
    check(!error.message.isEmpty && !error.hint.isEmpty, "empty message or hint for \(error)")
    switch error {
    case .unknownCommand(let name, let suggestion):
        check(!name.hasPrefix("-") || name == "-", "'\(name)' taken for a command")
        if let suggestion { check(CommandTable.all.contains { $0.name == suggestion }, "suggested command '\(suggestion)' does not exist") }
    case .unknownOption(_, _, let suggestion):
        if let suggestion { check(allOptionNames.contains(suggestion), "suggested option '--\(suggestion)' does not exist") }
    case .ambiguousOption(_, _, let candidates):
        check(candidates.count >= 2, "ambiguous between \(candidates)")
        for c in candidates { check(allOptionNames.contains(c), "ambiguity candidate '--\(c)' does not exist") }
    case .missingValue(let option, let command), .unexpectedValue(let option, let command):
        check(allOptionNames.contains(option), "error names option '\(option)', which does not exist")
        check(command == "nexusctl" || command.split(separator: " ").allSatisfy { allCommandNames.contains(String($0)) }, "error names command '\(command)'")
    case .missingArgument(let command, _), .tooManyArguments(let command, _, _), .passwordInArguments(let command):
        check(command.split(separator: " ").allSatisfy { allCommandNames.contains(String($0)) }, "error names command '\(command)'")
    }
}

/// No profile, config or session can be found here.
private let environment = ["HOME": "/nonexistent-nexus-fuzz", "NEXUS_HOME": "/nonexistent-nexus-fuzz/nexus"]

/// `NexusCLI.run` for the outcomes that touch no profile and no server.
private func checkRun(_ args: [String], error: ParseError?) {
    // The hidden hooks (`__complete`, `__generate-docs FOLDER`) run before parsing, and one
    // writes files: keep the fuzzer away from them.
    if args.first?.hasPrefix("__") == true { return }
    let terminal = CapturedTerminal()
    let code = NexusCLI.run(arguments: args, environment: environment, terminal: terminal)
    if let error {
        check(code == 2, "parse error \(error) exits \(code)")
        check(terminal.out.isEmpty, "parse error printed on stdout: \(terminal.out)")
        check(contains(terminal.err, error.message), "stderr lacks the message: \(terminal.err)")
    } else if code == 0 {
        check(terminal.err.isEmpty, "help or version printed on stderr: \(terminal.err)")
        check(!terminal.out.isEmpty && terminal.out.hasSuffix("\n"), "help or version printed no line: \(terminal.out)")
    } else {
        // A check after parsing (e.g. --fields) refused the command line.
        check(code == 2, "help or version exits \(code)")
        check(terminal.out.isEmpty, "a usage error printed on stdout: \(terminal.out)")
        check(!terminal.err.isEmpty, "a usage error printed nothing on stderr")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let args = argv(UnsafeRawBufferPointer(start: start, count: count))
    do {
        let (invocation, spec) = try parser.parse(args)
        let (again, againSpec) = try parser.parse(args)
        check(again == invocation && againSpec?.name == spec?.name, "parsing \(args) twice gave two answers")
        checkParsed(invocation, spec, args)
        if spec == nil || invocation[GlobalOptions.help] || invocation[GlobalOptions.version] || spec?.run == nil {
            checkRun(args, error: nil)
        }
    } catch {
        do {
            _ = try parser.parse(args)
            check(false, "parsing \(args) failed once, then succeeded")
        } catch let again {
            check(again == error, "parsing \(args) twice gave two errors: \(error), \(again)")
        }
        checkError(error)
        checkRun(args, error: error)
    }
    return 0
}
