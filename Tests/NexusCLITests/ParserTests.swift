import Testing
@testable import NexusCLI

/// The parser against the real command table, case by case.
struct ParserTests {
    let parser = Parser(commands: CommandTable.all)

    struct Case: Sendable, CustomTestStringConvertible {
        var args: [String]
        var path: [String]
        var arguments: [String] = []
        var flags: [String: Bool] = [:]
        var values: [String: [String]] = [:]
        var testDescription: String { args.joined(separator: " ") }
    }

    @Test(arguments: [
        Case(args: ["send", "1", "hello", "world"], path: ["send"], arguments: ["1", "hello", "world"]),
        Case(args: ["--json", "send", "1", "hi"], path: ["send"], arguments: ["1", "hi"], flags: ["json": true]),
        Case(args: ["send", "1", "hi", "--json"], path: ["send"], arguments: ["1", "hi"], flags: ["json": true]),
        Case(args: ["send", "1", "--", "--json", "-f"], path: ["send"], arguments: ["1", "--json", "-f"]),
        Case(args: ["send", "1", "-"], path: ["send"], arguments: ["1", "-"]),
        Case(args: ["tail", "-f"], path: ["tail"], flags: ["follow": true]),
        Case(args: ["tail", "-fn", "5"], path: ["tail"], flags: ["follow": true], values: ["lines": ["5"]]),
        Case(args: ["tail", "-n5", "3"], path: ["tail"], arguments: ["3"], values: ["lines": ["5"]]),
        Case(args: ["tail", "--lines=7"], path: ["tail"], values: ["lines": ["7"]]),
        Case(args: ["tail", "--lines", "7"], path: ["tail"], values: ["lines": ["7"]]),
        // Found by fuzzing: a combining mark after "=" must not glue it to the value.
        Case(args: ["tail", "--lines=\u{301}5"], path: ["tail"], values: ["lines": ["\u{301}5"]]),
        Case(args: ["tail", "--fol"], path: ["tail"], flags: ["follow": true]),
        Case(args: ["tail", "--no-follow"], path: ["tail"], flags: ["follow": false]),
        Case(args: ["--no-color", "convos"], path: ["convos"], flags: ["color": false]),
        Case(args: ["--server", "http://h:1", "--profile=work", "users"], path: ["users"],
             values: ["server": ["http://h:1"], "profile": ["work"]]),
        Case(args: ["queue", "flush"], path: ["queue", "flush"]),
        Case(args: ["queue"], path: ["queue"]),
        Case(args: ["-q", "queue", "list"], path: ["queue", "list"], flags: ["quiet": true]),
        Case(args: ["send", "--help"], path: ["send"], flags: ["help": true]),
        Case(args: ["help", "send"], path: ["help"], arguments: ["send"]),
        Case(args: [], path: []),
        Case(args: ["--version"], path: [], flags: ["version": true]),
    ])
    func parses(_ c: Case) throws {
        let (invocation, _) = try parser.parse(c.args)
        #expect(invocation == Invocation(path: c.path, flags: c.flags, values: c.values, arguments: c.arguments))
    }

    struct Failure: Sendable, CustomTestStringConvertible {
        var args: [String]
        var error: ParseError
        var testDescription: String { args.joined(separator: " ") }
    }

    @Test(arguments: [
        Failure(args: ["sned", "1", "x"], error: .unknownCommand("sned", suggestion: "send")),
        Failure(args: ["frobnicate"], error: .unknownCommand("frobnicate", suggestion: nil)),
        Failure(args: ["tail", "--folow"], error: .unknownOption("--folow", command: "tail", suggestion: "follow")),
        Failure(args: ["tail", "--bogus"], error: .unknownOption("--bogus", command: "tail", suggestion: nil)),
        Failure(args: ["tail", "-x"], error: .unknownShortOption("-x", letter: "x", command: "tail")),
        Failure(args: ["tail", "--lines"], error: .missingValue(option: "lines", command: "tail")),
        Failure(args: ["tail", "-n"], error: .missingValue(option: "lines", command: "tail")),
        Failure(args: ["tail", "--follow=yes"], error: .unexpectedValue(option: "follow", command: "tail")),
        Failure(args: ["send"], error: .missingArgument(command: "send", usage: "<conversation> <text>...")),
        Failure(args: ["new"], error: .missingArgument(command: "new", usage: "<email>")),
        Failure(args: ["whoami", "extra"], error: .tooManyArguments(command: "whoami", extra: "extra", usage: "")),
        Failure(args: ["convos", "--s"], error: .ambiguousOption("--s", command: "convos", candidates: ["search", "server"])),
        Failure(args: ["whoami", "--s"], error: .missingValue(option: "server", command: "whoami")),
        Failure(args: ["users", "--s", "x"], error: .ambiguousOption("--s", command: "users", candidates: ["search", "server"])),
        Failure(args: ["--prof"], error: .missingValue(option: "profile", command: "nexusctl")),
        // Not a prefix of --password-stdin: that would leave the password an argument.
        Failure(args: ["login", "a@b.c", "--password", "secret"], error: .passwordInArguments(command: "login")),
        Failure(args: ["register", "a@b.c", "--password=secret"], error: .passwordInArguments(command: "register")),
    ])
    func rejects(_ f: Failure) {
        #expect(throws: f.error) { try parser.parse(f.args) }
    }

    @Test func hintsNameTheFix() {
        #expect(ParseError.unknownOption("--bfore", command: "tail", suggestion: "before").hint
                == "did you mean --before? See 'nexusctl tail --help'.")
        #expect(ParseError.unknownCommand("sned", suggestion: "send").hint == "did you mean 'send'? See 'nexusctl --help'.")
    }

    @Test func editDistanceCountsTranspositionAsOne() {
        #expect(editDistance("bfeore", "before") == 1)
        #expect(editDistance("folow", "follow") == 1)
        #expect(editDistance("", "abc") == 3)
    }

    @Test func tableHasNoDuplicateNames() {
        func check(_ specs: [CommandSpec]) {
            let names = specs.map(\.name)
            #expect(Set(names).count == names.count, "duplicate command names in \(names)")
            for spec in specs {
                let options = spec.options + GlobalOptions.all
                let longs = options.map(\.name)
                #expect(Set(longs).count == longs.count, "duplicate option in \(spec.name): \(longs)")
                let shorts = options.compactMap(\.short)
                #expect(Set(shorts).count == shorts.count, "duplicate short option in \(spec.name): \(shorts)")
                check(spec.subcommands)
            }
        }
        check(CommandTable.all)
    }

    /// The refusal comes from the option's `secret`, not from its name: any table can mark one.
    @Test func anOptionMarkedSecretRefusesItsSecretInArgv() {
        let spec = CommandSpec(
            name: "deploy", summary: "", options: [Flag("token-stdin", help: "", secret: "token")], arguments: 0...1, run: nil)
        let parser = Parser(commands: [spec])
        #expect(throws: ParseError.passwordInArguments(command: "deploy")) { try parser.parse(["deploy", "--token=abc"]) }
        #expect(throws: ParseError.passwordInArguments(command: "deploy")) { try parser.parse(["deploy", "--token", "abc"]) }
        // Without the mark, --token is a prefix of --token-stdin, and "abc" is left an argument.
        let unmarked = Parser(commands: [CommandSpec(
            name: "deploy", summary: "", options: [Flag("token-stdin", help: "")], arguments: 0...1, run: nil)])
        #expect((try? unmarked.parse(["deploy", "--token", "abc"]))?.0.arguments == ["abc"])
    }

    /// A command reads back, by the key it declared, what the parser stored: a switch as
    /// Bool (or nil when not given), a value as its last, a repeatable one as all of them.
    @Test func aKeyReadsWhatItsOptionWasGiven() throws {
        let (tail, _) = try parser.parse(["tail", "-fn", "5", "--lines=6", "--no-color"])
        #expect(tail[TailCommand.follow] && !tail[TailCommand.read])
        #expect(tail[TailCommand.lines] == "6" && tail[TailCommand.cursor] == nil)
        #expect(tail.given(GlobalOptions.color) == false && tail.given(GlobalOptions.quiet) == nil)
        let (send, _) = try parser.parse(["send", "1", "--file", "a", "--file=b"])
        #expect(send[SendCommand.file] == ["a", "b"] && send[SendCommand.name] == nil)
    }

    /// The commands after which the runner delivers the queue, from the table alone.
    @Test func theTableSaysWhichCommandsDeliverTheQueueAfterwards() {
        let delivering = CommandTable.all.filter(\.deliversQueueAfterwards).map(\.name)
        #expect(Set(delivering) == ["convos", "users", "new", "whoami", "tail"])
    }
}
