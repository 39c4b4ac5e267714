enum HelpCommand {
    static let spec = CommandSpec(
        name: "help", summary: "Show help for a command, or a topic: exit-codes",
        usage: ["[<command>...]", "exit-codes"],
        details: "The same help, one page a command, is in docs/commands/ and the man page nexusctl(1).",
        arguments: 0...3,
        jsonFields: ["code", "meaning", "command", "summary", "usage", "options", "subcommands", "jsonFields", "examples"],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let words = context.arguments
        if words == ["exit-codes"] {
            if context.output.json {
                context.output.document(ExitCode.allCases.map { ExitCodeView(code: $0.rawValue, meaning: $0.meaning) })
            } else {
                context.output.table(ExitCode.allCases.map { ["\($0.rawValue)", "\($0.meaning)"] }, header: ["CODE", "MEANING"])
            }
            return .ok
        }
        guard !words.isEmpty else {
            context.terminal.writeOut(Help.overview(CommandTable.all))
            return .ok
        }
        var specs = CommandTable.all
        var found: CommandSpec?
        for word in words {
            guard let next = specs.first(where: { $0.name == word }) else {
                throw CLIError(ParseError.unknownCommand(words.joined(separator: " "), suggestion: closest(word, among: specs.map(\.name))))
            }
            found = next
            specs = next.subcommands
        }
        if context.output.json {
            context.output.document(CommandView(path: words, spec: found!))
        } else {
            context.terminal.writeOut(Help.command(words, found!))
        }
        return .ok
    }

    /// An exit code as `help exit-codes --json` prints it: the code a number, as `$?` is.
    struct ExitCodeView: Encodable {
        var code: Int32
        var meaning: String
    }

    /// A command's declaration as JSON, for tools that build on nexusctl.
    struct CommandView: Encodable {
        struct Option: Encodable {
            var name: String
            var short: String?
            var value: String?
            var help: String
        }
        var command: String
        var summary: String
        var usage: [String]
        var options: [Option]
        var subcommands: [String]
        var jsonFields: [String]
        var examples: [[String]]

        init(path: [String], spec: CommandSpec) {
            command = path.joined(separator: " ")
            summary = spec.summary
            usage = Help.synopsis(path, spec)
            options = spec.options.map { o in
                var value: String?
                if case .value(let placeholder) = o.kind { value = placeholder }
                if case .optionalValue(let placeholder, _) = o.kind { value = "[" + placeholder + "]" }
                return Option(name: o.name, short: o.short.map(String.init), value: value, help: o.help)
            }
            subcommands = spec.subcommands.map(\.name)
            jsonFields = spec.jsonFields
            examples = spec.examples.map { [$0.0, $0.1] }
        }
    }
}
