/// Text that is safe to write to a terminal. Everything a command prints as text goes
/// through this type, because messages, names, titles, emails and server errors come
/// from other people: raw, an ESC, CR or bidi control in them could fake a line from
/// someone else, clear the screen or write the clipboard (OSC 52).
///
/// The rule is safe by default. String literals in our source are trusted as written,
/// and so is what `Output.paint` makes (our own colours); any value interpolated into a
/// `TerminalText`, or given to `TerminalText(_:)`, is escaped. A plain `String` can't be
/// passed where `TerminalText` is expected, so a new printing site can't forget.
/// (`TerminalText("…")` with a literal is that literal, as Swift reads `T(literal)`.)
///
/// The escapes (docs/output.md), one style throughout:
/// - `\0` NUL, `\a` BEL, `\b` backspace, `\t` tab, `\n` newline, `\v`, `\f`, `\r` CR, `\e` ESC;
/// - `\x01` … `\x1f` for the other C0 controls, `\x7f` for DEL;
/// - `\u{85}` for C1 controls (U+0080–U+009F) and for characters that reorder, hide or
///   break text: bidi controls, zero-width characters, line and paragraph separators,
///   the BOM, soft hyphen and the other Unicode format characters (category Cf);
/// - a backslash is shown as `\\` only where it would otherwise start one of these
///   escapes (before one of `0abtnvfreux` or another backslash or escape); elsewhere,
///   as in `C:\Users`, it is shown as itself. So every escape reads back to one text.
/// Tabs and newlines of a message body keep their layout: see `TerminalText.body`.
public struct TerminalText: Equatable, Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// What is written to the terminal: escaped text plus our own colour sequences.
    public private(set) var rendered: String

    /// Trusted: a literal in our source.
    public init(stringLiteral value: String) { rendered = value }

    /// Untrusted text, escaped to one line.
    public init(_ untrusted: String) { rendered = Self.escapeLine(untrusted) }

    public init(stringInterpolation: Interpolation) { rendered = stringInterpolation.rendered }

    private init(rendered: String) { self.rendered = rendered }

    public var description: String { rendered }

    public var isEmpty: Bool { rendered.isEmpty }

    public static func + (lhs: TerminalText, rhs: TerminalText) -> TerminalText {
        TerminalText(rendered: lhs.rendered + rhs.rendered)
    }

    public static func += (lhs: inout TerminalText, rhs: TerminalText) { lhs.rendered += rhs.rendered }

    /// Our own colour sequences and padding, trusted; only `Output` makes them.
    static func control(_ sequence: String) -> TerminalText { TerminalText(rendered: sequence) }

    public struct Interpolation: StringInterpolationProtocol {
        var rendered = ""

        public init(literalCapacity: Int, interpolationCount: Int) { rendered.reserveCapacity(literalCapacity) }

        public mutating func appendLiteral(_ literal: String) { rendered += literal }

        public mutating func appendInterpolation(_ text: TerminalText) { rendered += text.rendered }

        /// Any other value is untrusted and escaped, whatever its type.
        public mutating func appendInterpolation<T>(_ value: T) { rendered += TerminalText.escapeLine(String(describing: value)) }
    }

    /// A message body that may span lines: each continuation line starts with
    /// `continuation`, which holds the leading spaces and the `│` no message line starts
    /// with, so text after a newline can never pass for a new message. Tabs stay tabs;
    /// everything else is escaped as in one line.
    public static func body(_ untrusted: String, continuation: TerminalText) -> TerminalText {
        TerminalText(rendered: render(untrusted, continuation: continuation.rendered))
    }

    /// The start of a continuation line: `indent` spaces, then the bar a message line
    /// never starts with (its first column is always a seq, a `[` or a `#`).
    public static func continuation(indent: Int) -> TerminalText {
        TerminalText(rendered: String(repeating: " ", count: indent) + "│ ")
    }

    /// One line of untrusted text as it may be shown on a terminal (stdout or stderr):
    /// every control and format character escaped, newlines and tabs too. For callers
    /// that write to the terminal themselves, such as a hook's output on stderr.
    public static func escapeLine(_ untrusted: String) -> String {
        // The common case costs one pass and no copy.
        if !untrusted.unicodeScalars.contains(where: { needsEscape($0) || $0 == "\\" }) { return untrusted }
        return render(untrusted, continuation: nil)
    }

    /// With a continuation, newlines start a continuation line and tabs stay; without,
    /// both are escaped.
    private static func render(_ untrusted: String, continuation: String?) -> String {
        let scalars = Array(untrusted.unicodeScalars)
        var out = ""
        out.reserveCapacity(untrusted.utf8.count + 8)
        var i = 0
        while i < scalars.count {
            let scalar = scalars[i]
            var shown: String?
            if let continuation, scalar == "\n" {
                shown = "\n" + continuation
            } else if continuation != nil, scalar == "\t" {
                shown = "\t"
            } else if let run = tagRun(scalars, at: i) {
                // An emoji flag of a region (England, Scotland…): kept whole.
                for s in scalars[i..<run] { out.unicodeScalars.append(s) }
                i = run
                continue
            } else if joinsVisibleText(scalars, at: i) {
                shown = String(scalar)
            } else if let escape = escape(scalar) {
                shown = escape
            } else if scalar == "\\" {
                // Doubled only where what follows would read as an escape.
                let next = i + 1 < scalars.count ? scalars[i + 1] : nil
                let nextShown = next.flatMap { escape($0) }?.unicodeScalars.first ?? next
                shown = nextShown.map { $0 == "\\" || escapeLetters.contains($0) } == true ? "\\\\" : "\\"
            }
            if let shown { out += shown } else { out.unicodeScalars.append(scalar) }
            i += 1
        }
        return out
    }

    /// The letters that follow a backslash in an escape.
    private static let escapeLetters: Set<Unicode.Scalar> = ["0", "a", "b", "t", "n", "v", "f", "r", "e", "u", "x"]

    /// A zero-width joiner or non-joiner between two visible non-ASCII characters is
    /// part of the writing (an emoji family, Persian, Indic scripts) and kept; next to
    /// ASCII, a space or an edge it only hides something, and is escaped.
    private static func joinsVisibleText(_ scalars: [Unicode.Scalar], at i: Int) -> Bool {
        guard scalars[i] == "\u{200C}" || scalars[i] == "\u{200D}", i > 0, i + 1 < scalars.count else { return false }
        func visible(_ s: Unicode.Scalar) -> Bool {
            s.value > 0x7F && !needsEscape(s) && !s.properties.isWhitespace
        }
        return visible(scalars[i - 1]) && visible(scalars[i + 1])
    }

    /// The end of a subdivision flag's tag characters (🏴 then at most six tags ending in
    /// U+E007F) starting at `i`; tags anywhere else can smuggle hidden text.
    private static func tagRun(_ scalars: [Unicode.Scalar], at i: Int) -> Int? {
        guard i > 0, scalars[i - 1] == "\u{1F3F4}", (0xE0020...0xE007E).contains(scalars[i].value) else { return nil }
        var j = i
        while j < scalars.count, j - i < 6, (0xE0020...0xE007E).contains(scalars[j].value) { j += 1 }
        guard j < scalars.count, scalars[j] == "\u{E007F}" else { return nil }
        return j + 1
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x20 || (0x7F...0x9F).contains(v) { return true }
        if v < 0xAD { return false }
        switch v {
        case 0x2028, 0x2029: return true
        default: return scalar.properties.generalCategory == .format
        }
    }

    /// The visible form of one character, or nil to show it as itself.
    static func escape(_ scalar: Unicode.Scalar) -> String? {
        guard needsEscape(scalar) else { return nil }
        switch scalar.value {
        case 0x00: return "\\0"
        case 0x07: return "\\a"
        case 0x08: return "\\b"
        case 0x09: return "\\t"
        case 0x0A: return "\\n"
        case 0x0B: return "\\v"
        case 0x0C: return "\\f"
        case 0x0D: return "\\r"
        case 0x1B: return "\\e"
        case let v where v < 0x80: return "\\x" + hex(v, digits: 2)
        case let v: return "\\u{" + hex(v, digits: 1) + "}"
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let s = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - s.count)) + s
    }
}

extension TerminalText {
    /// A name from someone else made safe to save a file under: each character that
    /// `escapeLine` would escape becomes `_`, so a bidi override can't make
    /// `invoice<U+202E>fdp.exe` read as `invoiceexe.pdf` in a file manager, nor a control
    /// character hide in a listing. Not the escape itself: its backslash would be doubled
    /// whenever the name is printed, and the printed path would no longer be the file's.
    public static func fileName(_ untrusted: String) -> String {
        if !untrusted.unicodeScalars.contains(where: needsEscape) { return untrusted }
        let scalars = Array(untrusted.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            if let run = tagRun(scalars, at: i) {
                out.append(contentsOf: scalars[i..<run])
                i = run
                continue
            }
            out.append(needsEscape(scalars[i]) && !joinsVisibleText(scalars, at: i) ? "_" : scalars[i])
            i += 1
        }
        return String(out)
    }
}
