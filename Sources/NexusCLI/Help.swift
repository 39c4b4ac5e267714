/// Renders `--help` from the command table, so help never drifts from the parser.
enum Help {
    static func overview(_ commands: [CommandSpec]) -> String {
        var out = "usage: nexusctl [--server URL] [--profile NAME] [--json] [--quiet] <command> [<args>]\n\n"
        out += "Nexus: offline-first messaging for terminals and scripts.\n\nCommands:\n"
        let names: [String] = commands.flatMap { c -> [String] in [c.name] + c.subcommands.map { c.name + " " + $0.name } }
        let width = (names.map(\.count).max() ?? 0) + 2
        for c in commands {
            out += "  " + c.name.padding(width) + c.summary + "\n"
            for s in c.subcommands {
                out += "  " + (c.name + " " + s.name).padding(width) + s.summary + "\n"
            }
        }
        out += "\nGlobal options:\n" + optionLines(GlobalOptions.all)
        out += "\nRun 'nexusctl <command> --help' for a command's options; 'nexusctl help exit-codes' for exit codes.\n"
        return out
    }

    static func synopsis(_ path: [String], _ spec: CommandSpec) -> [String] {
        let name = "nexusctl " + path.joined(separator: " ")
        return spec.usage.map { $0.isEmpty ? name : name + " " + $0 }
    }

    static func command(_ path: [String], _ spec: CommandSpec) -> String {
        var out = ""
        for (i, line) in synopsis(path, spec).enumerated() {
            out += (i == 0 ? "usage: " : "   or: ") + line + "\n"
        }
        out += "\n" + spec.summary + "\n"
        if !spec.details.isEmpty { out += "\n" + spec.details + "\n" }
        if !spec.subcommands.isEmpty {
            out += "\nCommands:\n"
            let width = (spec.subcommands.map(\.name.count).max() ?? 0) + 2
            for s in spec.subcommands { out += "  " + s.name.padding(width) + s.summary + "\n" }
        }
        if !spec.options.isEmpty { out += "\nOptions:\n" + optionLines(spec.options) }
        out += "\nGlobal options:\n" + optionLines(GlobalOptions.all)
        return out
    }

    static func optionLines(_ options: [OptionSpec]) -> String {
        let labels = options.map(label)
        let width = (labels.map(\.count).max() ?? 0) + 2
        return zip(labels, options).map { "  " + $0.padding(width) + $1.help + "\n" }.joined()
    }

    static func label(_ o: OptionSpec) -> String {
        var text = o.short.map { "-\($0), " } ?? "    "
        text += "--" + o.name
        if case .value(let placeholder) = o.kind { text += " " + placeholder }
        return text
    }
}

/// docs/nexusctl.md: every command's help, generated from the table (`make docs`); a test
/// keeps the committed file identical to this.
public enum Manual {
    public static func markdown() -> String {
        var out = "# nexusctl\n\nGenerated from the command table by `make docs`; the same text as `nexusctl <command> --help`.\n"
        out += "\n```\n" + Help.overview(CommandTable.all) + "```\n"
        for spec in CommandTable.all {
            out += section([spec.name], spec)
            for sub in spec.subcommands { out += section([spec.name, sub.name], sub) }
        }
        return out
    }

    private static func section(_ path: [String], _ spec: CommandSpec) -> String {
        "\n## nexusctl \(path.joined(separator: " "))\n\n```\n" + Help.command(path, spec) + "```\n"
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
