import ArgumentParser
import Foundation
import NexusWire

/// nexusd(1), made from the same declarations as `nexusd --help` (`make docs` writes
/// docs/nexusd.1 with the hidden `nexusd --generate-manual`), so the two never drift.
extension Nexusd {
    static func manual() -> String {
        // One line an option: no wrapping, so each line splits into its label and its text.
        let help = helpMessage(columns: 10_000)
        var out = ".TH NEXUSD 1 \"\" \"nexusd \(BuildInfo.version)\" \"System Administration\"\n"
        out += ".SH NAME\nnexusd \\- the Nexus sync server\n"
        out += ".SH SYNOPSIS\n.B nexusd\n" + roff(String(usage(help).dropFirst("nexusd ".count))) + "\n"
        out += ".SH DESCRIPTION\n" + configuration.discussion.components(separatedBy: "\n\n").map(roff).joined(separator: "\n.PP\n") + "\n"
        out += ".SH OPTIONS\n"
        var inOptions = false
        // A label too long for the column ("--session-max-age <duration>") stands on its own
        // line, its text on the next.
        var pending: String?
        for line in help.split(separator: "\n") {
            if line.hasPrefix("OPTIONS:") { inOptions = true; continue }
            guard inOptions, line.hasPrefix("  ") else { continue }
            // The label is the option's words ("-h, --help", "--db <path|url>"); a long one
            // leaves only one space before the text, so split on words, not on the gap.
            let words = line.split(separator: " ")
            var label = words.prefix { $0.hasPrefix("-") || $0.hasPrefix("<") }.joined(separator: " ")
            let meaning = words.drop { $0.hasPrefix("-") || $0.hasPrefix("<") }
            if label.isEmpty, let held = pending { label = held }
            pending = nil
            guard !label.isEmpty else { continue }
            guard !meaning.isEmpty else {
                pending = label
                continue
            }
            out += ".TP\n.B \(roff(label))\n\(roff(meaning.joined(separator: " ")))\n"
        }
        out += ".SH SEE ALSO\n.BR nexusctl (1)\n"
        return out
    }

    private static func usage(_ help: String) -> String {
        help.split(separator: "\n").first { $0.hasPrefix("USAGE: ") }.map { String($0.dropFirst("USAGE: ".count)) } ?? "nexusd"
    }

    /// Text made safe for roff: backslashes, hyphens, and lines that start with a dot or quote.
    private static func roff(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        return escaped.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
    }
}
