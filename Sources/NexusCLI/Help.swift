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
        out += "Text output shows control characters others wrote escaped (\\e, \\r, \\u{202e}); --json keeps them exact.\n"
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
        if !spec.jsonFields.isEmpty {
            out += "\nJSON fields (for --fields):\n  " + spec.jsonFields.joined(separator: ", ") + "\n"
        }
        if !spec.examples.isEmpty {
            out += "\nExamples:\n" + spec.examples.map { "  " + $0.0 + "\n      " + $0.1 + "\n" }.joined()
        }
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
        if case .optionalValue(let placeholder, _) = o.kind { text += "[=" + placeholder + "]" }
        return text
    }
}

/// The reference docs, generated from the command table by `make docs`: one Markdown page
/// a command under docs/commands/, and the man page docs/nexusctl.1. Tests keep the
/// committed files identical to these.
public enum Manual {
    /// Every command, subcommands included, with its path.
    static func all() -> [([String], CommandSpec)] {
        CommandTable.all.flatMap { c in [([c.name], c)] + c.subcommands.map { ([c.name, $0.name], $0) } }
    }

    public static func pageName(_ path: [String]) -> String { "nexusctl-" + path.joined(separator: "-") + ".md" }

    /// (file name under docs/commands, contents).
    public static func pages() -> [(String, String)] {
        var index = "# nexusctl commands\n\nGenerated from the command table by `make docs`. Each page holds the\n"
        index += "command's `--help`; its synopsis is the one `-h` prints (a test checks both).\n\n"
        index += all().map { "- [nexusctl \($0.0.joined(separator: " "))](\(pageName($0.0))): \($0.1.summary)\n" }.joined()
        index += "\nSee also [exit codes](../exit-codes.md), [the outbox](../outbox.md) and the man page `nexusctl.1`.\n"
        return [("README.md", index)] + all().map { path, spec in (pageName(path), page(path, spec)) }
    }

    static func page(_ path: [String], _ spec: CommandSpec) -> String {
        var out = "# nexusctl \(path.joined(separator: " "))\n\n\(spec.summary).\n\n## Synopsis\n\n```\n"
        out += Help.synopsis(path, spec).joined(separator: "\n") + "\n```\n\n## Help\n\n```\n" + Help.command(path, spec) + "```\n"
        return out
    }

    /// The man page, in roff.
    public static func manPage() -> String {
        var out = ".TH NEXUSCTL 1 \"\" \"nexusctl \(NexusCLI.version)\" \"User Commands\"\n"
        out += ".SH NAME\nnexusctl \\- offline-first messaging for terminals and scripts\n"
        out += ".SH SYNOPSIS\n.B nexusctl\n[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIarguments\\fR]\n"
        out += ".SH DESCRIPTION\n" + roff("nexusctl sends and reads messages through a nexusd server. Every message goes to a local outbox, synced to disk, before anything is sent, so nothing is lost offline; `queue flush` delivers what waits. Every command prints text for people and, with --json, JSON for programs.") + "\n"
        out += ".SH COMMANDS\n"
        for (path, spec) in all() {
            for line in Help.synopsis(path, spec) { out += ".TP\n.B " + roff(line) + "\n" }
            out += roff(spec.summary) + ".\n"
            if !spec.details.isEmpty { out += ".IP\n" + paragraphs(spec.details) + "\n" }
            for o in spec.options { out += ".IP\n\\fB" + roff(Help.label(o).trimmingSpaces()) + "\\fR: " + roff(o.help) + "\n" }
        }
        out += ".SH GLOBAL OPTIONS\n"
        for o in GlobalOptions.all { out += ".TP\n.B " + roff(Help.label(o).trimmingSpaces()) + "\n" + roff(o.help) + "\n" }
        out += ".SH EXIT STATUS\n"
        for code in ExitCode.allCases { out += ".TP\n.B \(code.rawValue)\n" + roff(code.meaning) + "\n" }
        out += ".SH ENVIRONMENT\n"
        for (name, meaning) in [
            ("NEXUS_SERVER", "the server URL, below --server and above the profile's own"),
            ("NEXUS_PROFILE", "the profile, below --profile and above the config file"),
            ("NEXUS_TOKEN", "an access token to use instead of the profile's session, for this command only; nothing is saved (docs/tokens.md)"),
            ("NEXUS_HOME", "where profiles live (default $XDG_DATA_HOME/nexus or ~/.local/share/nexus)"),
            ("NO_COLOR", "when set, no colour"),
            ("XDG_CONFIG_HOME", "where the config file lives (default ~/.config)"),
        ] { out += ".TP\n.B \(name)\n" + roff(meaning) + "\n" }
        out += ".SH FILES\n.TP\n.I $XDG_CONFIG_HOME/nexus/config\n" + roff("lines of key = value: profile = NAME, server = URL. The server is the last choice: --server, then $NEXUS_SERVER, then the server the profile logged in to, then this line, then http://127.0.0.1:8787") + "\n"
        out += ".TP\n.I $NEXUS_HOME/<profile>/\n" + roff("session.json (mode 0600), outbox.jsonl, the message cache and tail cursors") + "\n"
        out += ".SH SEE ALSO\n.BR nexusd (1)\n"
        return out
    }

    /// Details as roff paragraphs: the line breaks of the source are only wrapping (man
    /// fills lines to the reader's width), and a blank line starts a new paragraph.
    static func paragraphs(_ text: String) -> String {
        var paragraphs: [[String]] = [[]]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map({ String($0).trimmingSpaces() }) {
            if line.isEmpty { paragraphs.append([]) } else { paragraphs[paragraphs.count - 1].append(line) }
        }
        return paragraphs.filter { !$0.isEmpty }.map { roff($0.joined(separator: " ")) }.joined(separator: "\n.IP\n")
    }

    /// Text made safe for roff: backslashes, hyphens, and lines that start with a dot or quote.
    static func roff(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            default: out.append(c)
            }
        }
        return out.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
    }
}

extension String {
    func replacingNewlines(with separator: String) -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: separator)
    }

    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
