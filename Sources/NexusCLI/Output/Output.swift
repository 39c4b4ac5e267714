#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything a command prints goes through here, so the rules hold everywhere: with
/// --json stdout carries only JSON; notes and warnings go to stderr; colour only on a
/// terminal and never with NO_COLOR or --no-color; text takes `TerminalText`, so what
/// others wrote is escaped before it reaches a terminal (JSON stays exact).
public final class Output {
    public let terminal: any Terminal
    public let json: Bool
    public let quiet: Bool
    public let color: Bool
    /// --fields: the JSON fields to keep of each item (nil: all of them).
    let fields: Set<String>?

    public init(terminal: any Terminal, json: Bool, quiet: Bool, color: Bool, fields: Set<String>? = nil) {
        self.terminal = terminal
        self.json = json
        self.quiet = quiet
        self.color = color
        self.fields = fields
    }

    /// A line of text output on stdout (not used with --json).
    public func line(_ text: TerminalText = "") { terminal.writeOut(text.rendered + "\n") }

    /// Information for people on stderr, such as "Logged in as …"; silenced by --quiet.
    public func note(_ text: TerminalText) {
        if !quiet { terminal.writeErr(text.rendered + "\n") }
    }

    public func warn(_ text: TerminalText) { writeErr("\(paint("warning:", .yellow)) \(text)") }

    /// The message and hint are escaped whole: they often quote the server or the user.
    public func error(_ error: CLIError) {
        writeErr("\(paint("error:", .red)) \(error.message)")
        if let hint = error.hint { writeErr("hint: \(hint)") }
    }

    private func writeErr(_ line: TerminalText) { terminal.writeErr(line.rendered + "\n") }

    /// One JSON document on stdout. With --fields, only those fields are kept: of the
    /// document, of each element of a list, or of each element of the list under
    /// `items` (such as "conversations").
    public func document<T: Encodable>(_ value: T, items: String? = nil) {
        terminal.writeOut(encode(value, pretty: terminal.outputIsTerminal, items: items) + "\n")
    }

    /// One line of an NDJSON stream on stdout.
    public func record<T: Encodable>(_ value: T) {
        terminal.writeOut(encode(value, pretty: false, items: nil) + "\n")
    }

    private func encode<T: Encodable>(_ value: T, pretty: Bool, items: String?) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        guard var data = try? encoder.encode(value) else { return "null" }
        if let fields, let whole = try? JSONDecoder().decode(JSONValue.self, from: data) {
            let selected = items.map { whole.selecting(fields, inside: $0) } ?? whole.selecting(fields)
            data = (try? encoder.encode(selected)) ?? data
        }
        return String(decoding: data, as: UTF8.self)
    }

    public enum Style: String {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", cyan = "36"
    }

    public func paint(_ text: TerminalText, _ style: Style) -> TerminalText {
        color ? .control("\u{1B}[\(style.rawValue)m") + text + .control("\u{1B}[0m") : text
    }

    /// Prints rows as columns aligned on display width; the last column is not padded.
    public func table(_ rows: [[TerminalText]], header: [TerminalText]? = nil) {
        let all = (header.map { [$0] } ?? []) + rows
        guard let columns = all.map(\.count).max(), columns > 0 else { return }
        var widths = Array(repeating: 0, count: columns)
        for row in all {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], displayWidth(cell.rendered)) }
        }
        func render(_ row: [TerminalText], style: Style?) {
            var out: TerminalText = ""
            for (i, cell) in row.enumerated() {
                out += cell
                if i < row.count - 1 { out += .control(String(repeating: " ", count: widths[i] - displayWidth(cell.rendered) + 2)) }
            }
            line(style.map { paint(out, $0) } ?? out)
        }
        if let header { render(header, style: .bold) }
        for row in rows { render(row, style: nil) }
    }
}

/// Columns a string takes in a terminal: wide East Asian characters and most emoji take
/// two, combining marks and our colour sequences none. An approximation without a
/// Unicode table, good enough to keep columns straight.
func displayWidth(_ s: String) -> Int {
    var width = 0
    var inColour = false
    for scalar in s.unicodeScalars {
        let v = scalar.value
        // Only Output.paint leaves an ESC in shown text: ESC [ … m.
        if v == 0x1B { inColour = true; continue }
        if inColour { if v == 0x6D { inColour = false }; continue }
        switch v {
        case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F: continue
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            width += 2
        default:
            width += 1
        }
    }
    return width
}

/// Untrusted text shortened to `limit` characters on one line, with an ellipsis when
/// cut: each run of newlines and tabs reads as one space (CR LF as a newline), and the
/// rest is escaped.
func preview(_ text: String, limit: Int) -> TerminalText {
    var flat = String.UnicodeScalarView()
    let scalars = Array(text.unicodeScalars)
    for (i, scalar) in scalars.enumerated() {
        let crlf = scalar == "\r" && i + 1 < scalars.count && scalars[i + 1] == "\n"
        if scalar == "\n" || scalar == "\t" || crlf {
            if flat.last != " " { flat.append(" ") }
        } else {
            flat.append(scalar)
        }
    }
    let shown = TerminalText.escapeLine(String(flat).trimmingSpaces())
    // Cut after escaping: the escapes count, so the column stays within the limit.
    return TerminalText(stringLiteral: shown.count <= limit ? shown : String(shown.prefix(limit - 1)) + "…")
}
