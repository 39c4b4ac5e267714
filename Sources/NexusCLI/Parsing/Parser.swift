/// The result of parsing a command line against the command table. Commands read their
/// options with the keys they declared them with (`invocation[key]`, in OptionKey.swift).
public struct Invocation: Sendable, Equatable {
    /// The command words, e.g. ["queue", "flush"]; empty for bare `nexusctl`.
    public var path: [String]
    /// The options given, by name: for the keys to read, and for tests of the parser.
    public fileprivate(set) var flags: [String: Bool] = [:]
    public fileprivate(set) var values: [String: [String]] = [:]
    public var arguments: [String] = []

    public init(path: [String] = [], flags: [String: Bool] = [:], values: [String: [String]] = [:], arguments: [String] = []) {
        self.path = path
        self.flags = flags
        self.values = values
        self.arguments = arguments
    }
}

/// A hand-written, table-driven parser in the manner of git's parse-options:
/// options may come before or after the command words; `--` ends them; a long option
/// may be shortened to any unique prefix; every flag has a `--no-` form.
public struct Parser: Sendable {
    public let commands: [CommandSpec]

    public init(commands: [CommandSpec]) { self.commands = commands }

    public func parse(_ args: [String]) throws(ParseError) -> (Invocation, CommandSpec?) {
        var invocation = Invocation()
        var spec: CommandSpec? = nil
        var subcommands = commands
        var endOfOptions = false
        var i = 0

        func active() -> [OptionSpec] { (spec?.options ?? []) + GlobalOptions.all }
        func commandName() -> String { invocation.path.isEmpty ? "nexusctl" : invocation.path.joined(separator: " ") }

        while i < args.count {
            let arg = args[i]
            i += 1
            if endOfOptions || arg == "-" || !arg.hasPrefix("-") {
                // A word names a (sub)command until the first positional argument.
                if !endOfOptions, invocation.arguments.isEmpty, !subcommands.isEmpty,
                   spec == nil || spec!.arguments.lowerBound == 0 || !spec!.subcommands.isEmpty
                {
                    if let sub = subcommands.first(where: { $0.name == arg }) {
                        spec = sub
                        invocation.path.append(arg)
                        subcommands = sub.subcommands
                        continue
                    }
                    if spec == nil {
                        throw .unknownCommand(arg, suggestion: closest(arg, among: commands.map(\.name)))
                    }
                    if let group = spec, group.arguments.upperBound == 0 {
                        throw .unknownSubcommand(
                            arg, group: commandName(), suggestion: closest(arg, among: subcommands.map(\.name)), usage: group.usage)
                    }
                }
                invocation.arguments.append(arg)
                continue
            }
            if arg == "--" {
                endOfOptions = true
                continue
            }
            if arg.hasPrefix("--") {
                var name = String(arg.dropFirst(2))
                var inline: String? = nil
                // Split at the first "=" scalar: a combining mark after it would make "="
                // part of a larger character, and `--lines=́5` must still mean --lines.
                let scalars = name.unicodeScalars
                if let eq = scalars.firstIndex(of: "=") {
                    inline = String(scalars[scalars.index(after: eq)...])
                    name = String(scalars[..<eq])
                }
                if active().contains(where: { $0.secret == name }) {
                    throw .passwordInArguments(command: commandName())
                }
                let (option, negated) = try resolve(name, in: active(), command: commandName())
                if case .optionalValue(_, let bare) = option.kind {
                    if negated, inline != nil { throw .unexpectedValue(option: "no-" + option.name, command: commandName()) }
                    invocation.values[option.name, default: []].append(negated ? "off" : inline ?? bare)
                } else if option.takesValue {
                    if let inline {
                        invocation.values[option.name, default: []].append(inline)
                    } else if i < args.count {
                        invocation.values[option.name, default: []].append(args[i])
                        i += 1
                    } else {
                        throw .missingValue(option: option.name, command: commandName())
                    }
                } else {
                    if inline != nil { throw .unexpectedValue(option: option.name, command: commandName()) }
                    invocation.flags[option.name] = !negated
                }
                continue
            }
            // A cluster of short options: -fq, -n5, -n 5.
            var chars = Array(arg.dropFirst())
            if let unknown = unknownShort(in: chars, among: active()) {
                // In a search query `-staging` leaves a word out, as in every search engine.
                if spec?.takesMinusWords == true, !invocation.arguments.isEmpty {
                    invocation.arguments.append(arg)
                    continue
                }
                throw .unknownShortOption(arg, letter: unknown, command: commandName())
            }
            while !chars.isEmpty {
                let c = chars.removeFirst()
                guard let option = active().first(where: { $0.short == c }) else { break }
                if option.takesValue {
                    if !chars.isEmpty {
                        invocation.values[option.name, default: []].append(String(chars))
                        chars.removeAll()
                    } else if i < args.count {
                        invocation.values[option.name, default: []].append(args[i])
                        i += 1
                    } else {
                        throw .missingValue(option: option.name, command: commandName())
                    }
                } else {
                    invocation.flags[option.name] = true
                }
            }
        }

        // Help and version win over argument counts, so `send --help` works.
        if let spec, !invocation[GlobalOptions.help], !invocation[GlobalOptions.version] {
            let usage = spec.usage.first ?? ""
            if invocation.arguments.count < spec.arguments.lowerBound {
                throw .missingArgument(command: commandName(), usage: usage)
            }
            if invocation.arguments.count > spec.arguments.upperBound {
                throw .tooManyArguments(
                    command: commandName(), extra: invocation.arguments[spec.arguments.upperBound], usage: usage)
            }
        }
        return (invocation, spec)
    }

    /// The first letter of a cluster that is no short option, up to the first that takes a
    /// value (the rest of the cluster is that value).
    private func unknownShort(in cluster: [Character], among options: [OptionSpec]) -> Character? {
        for c in cluster {
            guard let option = options.first(where: { $0.short == c }) else { return c }
            if option.takesValue { return nil }
        }
        return nil
    }

    /// Finds the option a long name means: exact, `no-` negation of a flag, or a unique prefix.
    private func resolve(_ name: String, in options: [OptionSpec], command: String) throws(ParseError) -> (OptionSpec, Bool) {
        if let exact = options.first(where: { $0.name == name }) { return (exact, false) }
        if name.hasPrefix("no-"), let flag = options.first(where: { $0.name == String(name.dropFirst(3)) && !$0.takesValue }) {
            return (flag, true)
        }
        var candidates: [(OptionSpec, Bool)] = options.filter { $0.name.hasPrefix(name) }.map { ($0, false) }
        if name.hasPrefix("no-") {
            let rest = String(name.dropFirst(3))
            candidates += options.filter { !$0.takesValue && $0.name.hasPrefix(rest) }.map { ($0, true) }
        }
        if candidates.count == 1 && !name.isEmpty { return candidates[0] }
        if candidates.count > 1 && !name.isEmpty {
            throw .ambiguousOption("--" + name, command: command, candidates: candidates.map { ($0.1 ? "no-" : "") + $0.0.name })
        }
        let all = options.map(\.name) + options.filter { !$0.takesValue }.map { "no-" + $0.name }
        throw .unknownOption("--" + name, command: command, suggestion: closest(name, among: all))
    }
}

/// The candidate nearest to `word` by edit distance, if near enough to be a likely typo.
func closest(_ word: String, among candidates: [String]) -> String? {
    let scored = candidates.map { ($0, editDistance(word, $0)) }.sorted { $0.1 < $1.1 }
    guard let best = scored.first else { return nil }
    let threshold = max(2, word.count / 3)
    return best.1 <= threshold ? best.0 : nil
}

/// Optimal string alignment distance: Levenshtein plus adjacent transpositions, so
/// "--bfeore" is one edit from "--before".
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { d[i][0] = i }
    for j in 0...b.count { d[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
            }
        }
    }
    return d[a.count][b.count]
}
