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

    /// A line of text output on stdout (not used with --json), above the status line if one is shown.
    public func line(_ text: TerminalText = "") {
        guard let status = statusLine else { return terminal.writeOut(text.rendered + "\n") }
        terminal.writeOut(Self.eraseLine + text.rendered + "\n" + status)
    }

    /// The status line's text, as written (nil: none is shown).
    private var statusLine: String?
    private static let eraseLine = "\r\u{1B}[2K"

    /// On a terminal, the last line shows what holds only for now (who is typing): it is
    /// rewritten in place, other lines go above it, and nil takes it away, so it never
    /// stays in the scrollback. Elsewhere it shows nothing.
    public func status(_ text: TerminalText?) {
        guard terminal.outputIsTerminal, text?.rendered != statusLine else { return }
        terminal.writeOut(Self.eraseLine + (text?.rendered ?? ""))
        statusLine = text?.rendered
    }

    /// Information for people on stderr, such as "Logged in as …"; silenced by --quiet.
    public func note(_ text: TerminalText) {
        if !quiet { writeErr(text) }
    }

    public func warn(_ text: TerminalText) { writeErr("\(paint("warning:", .yellow)) \(text)") }

    /// The product documents' offline banner, naming the server that can't be reached
    /// (which is often not the Internet: a nexusd on loopback that is down).
    public func offline(_ detail: TerminalText) {
        writeErr("\(paint("offline:", .yellow)) \(detail). Messages will send when the server can be reached.")
    }

    /// The message and hint are escaped whole: they often quote the server or the user.
    public func error(_ error: CLIError) {
        let message: TerminalText = error.verbatim ? TerminalText(stringLiteral: error.message) : "\(error.message)"
        writeErr("\(paint("error:", .red)) \(message)")
        if let hint = error.hint { writeErr(error.verbatim ? "hint: \(TerminalText(stringLiteral: hint))" : "hint: \(hint)") }
    }

    private func writeErr(_ line: TerminalText) {
        // On the same terminal, the status line makes way and comes back below.
        guard let status = statusLine, terminal.errorIsTerminal else { return terminal.writeErr(line.rendered + "\n") }
        terminal.writeOut(Self.eraseLine)
        terminal.writeErr(line.rendered + "\n")
        terminal.writeOut(status)
    }

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

    /// One element of a JSON list written as it comes (`send --each-line`): `[` before the
    /// first, `,` before the others, one a line; `endList` closes it.
    public func listElement<T: Encodable>(_ value: T, first: Bool) {
        terminal.writeOut((first ? "[" : ",") + encode(value, pretty: false, items: nil) + "\n")
    }

    public func endList(empty: Bool) { terminal.writeOut(empty ? "[]\n" : "]\n") }

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
    /// Each cell's width is measured once and the rows go out in one write: a list of
    /// ten thousand conversations is ten thousand lines.
    public func table(_ rows: [[TerminalText]], header: [TerminalText]? = nil) {
        let all = (header.map { [$0] } ?? []) + rows
        guard let columns = all.map(\.count).max(), columns > 0 else { return }
        // Each cell's width, row after row, in one flat array.
        var cellWidths: [Int] = []
        cellWidths.reserveCapacity(all.count * columns)
        var widths = Array(repeating: 0, count: columns)
        var size = 0
        for row in all {
            for (i, cell) in row.enumerated() {
                let w = displayWidth(cell.rendered)
                cellWidths.append(w)
                widths[i] = max(widths[i], w)
                size += cell.rendered.utf8.count
            }
        }
        // Bytes, not String appends: ten thousand rows of five cells.
        var out: [UInt8] = []
        out.reserveCapacity(size + all.count * (widths.reduce(0, +) + 2 * columns + 1) + 16)
        var at = 0
        for (r, row) in all.enumerated() {
            let bold = color && header != nil && r == 0
            if bold { out.append(contentsOf: "\u{1B}[\(Style.bold.rawValue)m".utf8) }
            for (i, cell) in row.enumerated() {
                if cell.rendered.utf8.withContiguousStorageIfAvailable({ out.append(contentsOf: $0) }) == nil {
                    out.append(contentsOf: cell.rendered.utf8)
                }
                if i < row.count - 1 {
                    out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: widths[i] - cellWidths[at] + 2))
                }
                at += 1
            }
            if bold { out.append(contentsOf: "\u{1B}[0m".utf8) }
            out.append(10)
        }
        terminal.writeOut(String(decoding: out, as: UTF8.self))
    }
}

/// Columns a string takes in a terminal: wide East Asian characters and emoji take two;
/// combining marks, variation selectors, skin-tone modifiers, what follows a zero-width
/// joiner (one emoji drawn from several) and our colour sequences take none. An
/// approximation without a Unicode table, good enough to keep columns straight.
func displayWidth(_ s: String) -> Int {
    // Most cells are plain ASCII: one column a byte, found in one pass over the bytes.
    let ascii = s.utf8.withContiguousStorageIfAvailable { p in !p.contains(where: { $0 >= 0x80 || $0 == 0x1B }) }
        ?? !s.utf8.contains(where: { $0 >= 0x80 || $0 == 0x1B })
    if ascii { return s.utf8.count }
    var width = 0
    var inColour = false
    var joined = false
    for scalar in s.unicodeScalars {
        let v = scalar.value
        // Only Output.paint leaves an ESC in shown text: ESC [ … m.
        if v == 0x1B { inColour = true; continue }
        if inColour { if v == 0x6D { inColour = false }; continue }
        if joined { joined = false; continue }
        switch v {
        case 0x200D: joined = true
        case 0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x200B...0x200F, 0x20D0...0x20FF, 0xFE00...0xFE0F,
             0x1F3FB...0x1F3FF, 0xE0000...0xE01EF:
            continue
        case 0x1100...0x115F, 0x231A...0x231B, 0x23E9...0x23EC, 0x23F0, 0x23F3, 0x25FD...0x25FE, 0x2614...0x2615,
             0x2648...0x2653, 0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE, 0x26D4,
             0x26EA, 0x26F2...0x26F3, 0x26F5, 0x26FA, 0x26FD, 0x2705, 0x270A...0x270B, 0x2728, 0x274C, 0x274E,
             0x2753...0x2755, 0x2757, 0x2795...0x2797, 0x27B0, 0x27BF, 0x2B1B...0x2B1C, 0x2B50, 0x2B55,
             0x2E80...0x303E, 0x3041...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
             0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x18AFF, 0x1B000...0x1B2FF,
             0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F300...0x1F64F, 0x1F680...0x1F6FF,
             0x1F7E0...0x1F7EB, 0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x3FFFD:
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
    // Printable ASCII without a backslash, not starting or ending with a space, is shown
    // as it is: nothing to flatten, trim or escape, and a character a byte.
    let bytes = text.utf8
    if let first = bytes.first, let last = bytes.last, first != 0x20, last != 0x20,
       !bytes.contains(where: { $0 < 0x20 || $0 > 0x7E || $0 == 0x5C }) {
        return TerminalText(stringLiteral: bytes.count <= limit ? text : String(text.prefix(limit - 1)) + "…")
    }
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
