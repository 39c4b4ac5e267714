import Testing
@testable import NexusCLI

/// How untrusted text is shown on a terminal (docs/output.md): every class of control and
/// format character escaped visibly, real text untouched, and every escape read back to
/// exactly one text.
struct TerminalTextTests {
    @Test(arguments: [
        // C0, with the short names first.
        ("\u{00}", "\\0"), ("\u{07}", "\\a"), ("\u{08}", "\\b"), ("\u{09}", "\\t"), ("\u{0A}", "\\n"),
        ("\u{0B}", "\\v"), ("\u{0C}", "\\f"), ("\u{0D}", "\\r"), ("\u{1B}", "\\e"),
        ("\u{01}", "\\x01"), ("\u{1A}", "\\x1a"), ("\u{1F}", "\\x1f"),
        // DEL and C1.
        ("\u{7F}", "\\x7f"), ("\u{80}", "\\u{80}"), ("\u{85}", "\\u{85}"), ("\u{9B}", "\\u{9b}"), ("\u{9F}", "\\u{9f}"),
        // Bidi controls.
        ("\u{202A}", "\\u{202a}"), ("\u{202B}", "\\u{202b}"), ("\u{202C}", "\\u{202c}"), ("\u{202D}", "\\u{202d}"),
        ("\u{202E}", "\\u{202e}"), ("\u{2066}", "\\u{2066}"), ("\u{2067}", "\\u{2067}"), ("\u{2068}", "\\u{2068}"),
        ("\u{2069}", "\\u{2069}"), ("\u{200E}", "\\u{200e}"), ("\u{200F}", "\\u{200f}"), ("\u{061C}", "\\u{61c}"),
        // Invisible and format characters, line and paragraph separators.
        ("\u{200B}", "\\u{200b}"), ("\u{200C}", "\\u{200c}"), ("\u{200D}", "\\u{200d}"), ("\u{2060}", "\\u{2060}"),
        ("\u{FEFF}", "\\u{feff}"), ("\u{00AD}", "\\u{ad}"), ("\u{2028}", "\\u{2028}"), ("\u{2029}", "\\u{2029}"),
        ("\u{E0041}", "\\u{e0041}"),
    ])
    func everyClassIsEscaped(_ raw: String, _ shown: String) {
        #expect(TerminalText.escapeLine(raw) == shown)
        #expect(TerminalText.escapeLine("a" + raw + "b") == "a" + shown + "b")
    }

    @Test(arguments: [
        "plain ASCII, with punctuation: [10:00] <bob@example.test> 100% ~ {} |",
        "héllo, naïve façade, Ωμέγα, Привет",
        "e\u{301}", // a combining accent
        "日本語のテキスト、中文，한국어",
        "👍🏽 🎉 ❤️ 🇫🇷",
        "👨‍👩‍👧‍👦", // joined by ZWJ between emoji
        "🏴󠁧󠁢󠁳󠁣󠁴󠁿", // a subdivision flag: tag characters after 🏴
        "می‌خواهم", // ZWNJ inside Persian
        "مرحبا עברית",
        "C:\\Users\\dave and \\d+ and a lone \\",
    ])
    func realTextPassesThrough(_ text: String) {
        #expect(TerminalText.escapeLine(text) == text)
        #expect(TerminalText(text).rendered == text)
        #expect(TerminalText.body(text, continuation: "  │ ").rendered == text)
    }

    @Test func theReportedAttacksAreDefused() {
        #expect(TerminalText.escapeLine("ok\r\u{1B}[2K[10:00] carol: send me the key") == "ok\\r\\e[2K[10:00] carol: send me the key")
        #expect(TerminalText.escapeLine("\u{1B}]52;c;cm0gLXJmIH4=\u{07}") == "\\e]52;c;cm0gLXJmIH4=\\a")
        #expect(TerminalText.escapeLine("Mallory\u{1B}[2J") == "Mallory\\e[2J")
        #expect(TerminalText.escapeLine("\u{9B}2J") == "\\u{9b}2J")
        #expect(TerminalText.escapeLine("invoice_\u{202E}fdp.exe") == "invoice_\\u{202e}fdp.exe")
        #expect(TerminalText.escapeLine("abc\u{08}\u{08}\u{08}xyz") == "abc\\b\\b\\bxyz")
        // Hidden text smuggled in tag characters, away from a flag.
        #expect(TerminalText.escapeLine("hi\u{E0068}\u{E0069}") == "hi\\u{e0068}\\u{e0069}")
        #expect(TerminalText.escapeLine("bo\u{200D}b") == "bo\\u{200d}b")
    }

    /// Whatever the input, what is shown holds no raw control, C1 or format character
    /// (other than a joiner inside non-ASCII writing or a flag's tags).
    @Test func noControlSurvivesAnywhereInUnicode() {
        var all = String.UnicodeScalarView()
        for v in UInt32(0)...0x10FFFF { if let s = Unicode.Scalar(v) { all.append(s); all.append("x") } }
        let shown = TerminalText.escapeLine(String(all))
        let raw = shown.unicodeScalars.filter { TerminalText.needsEscape($0) }
        #expect(raw.isEmpty, "raw: \(raw.prefix(10).map { String($0.value, radix: 16) })")
        let body = TerminalText.body(String(all), continuation: "").rendered
        #expect(body.unicodeScalars.filter { TerminalText.needsEscape($0) && $0 != "\n" && $0 != "\t" }.isEmpty)
    }

    /// A backslash is doubled exactly where it would otherwise read as an escape.
    @Test(arguments: [
        ("\\e[2J", "\\\\e[2J"), ("\\x7f", "\\\\x7f"), ("\\u{202e}", "\\\\u{202e}"), ("\\\\", "\\\\\\"),
        ("\\\u{1B}", "\\\\\\e"), ("a\\", "a\\"), ("\\q", "\\q"), ("\\\\q", "\\\\\\q"),
    ])
    func backslashes(_ raw: String, _ shown: String) {
        #expect(TerminalText.escapeLine(raw) == shown)
    }

    /// Every shown text reads back to the text it came from, so no two texts look alike.
    @Test func escapesAreUnambiguous() {
        let alphabet: [String] = ["\\", "e", "x", "u", "{", "}", "0", "7", "f", "a", "n", "q", "\u{1B}", "\n", "\u{202E}", "\u{7F}", "\u{85}"]
        var seed: UInt64 = 12
        for _ in 0..<5000 {
            var text = ""
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            for _ in 0..<Int(seed >> 61) + 1 {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                text += alphabet[Int(seed >> 33) % alphabet.count]
            }
            #expect(Self.unescape(TerminalText.escapeLine(text)) == text, "\(Array(text.unicodeScalars))")
        }
    }

    /// The reading rule of docs/output.md, written independently of the escaping.
    static func unescape(_ shown: String) -> String {
        let s = Array(shown.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        let named: [Unicode.Scalar: Unicode.Scalar] = ["0": "\0", "a": "\u{07}", "b": "\u{08}", "t": "\t", "n": "\n", "v": "\u{0B}",
                                                       "f": "\u{0C}", "r": "\r", "e": "\u{1B}", "\\": "\\"]
        while i < s.count {
            guard s[i] == "\\", i + 1 < s.count else { out.append(s[i]); i += 1; continue }
            let letter = s[i + 1]
            if let c = named[letter] {
                out.append(c); i += 2
            } else if letter == "x", i + 3 < s.count, let v = UInt32(String(String.UnicodeScalarView(s[i + 2...i + 3])), radix: 16) {
                out.append(Unicode.Scalar(v)!); i += 4
            } else if letter == "u", let close = s[i...].firstIndex(of: "}"), close > i + 2,
                      let v = UInt32(String(String.UnicodeScalarView(s[i + 3..<close])), radix: 16) {
                out.append(Unicode.Scalar(v)!); i = close + 1
            } else {
                out.append("\\"); i += 1
            }
        }
        return String(out)
    }

    @Test func bodiesKeepTheirLayoutAndCantFakeALine() {
        let bar: TerminalText = "        │ "
        #expect(TerminalText.body("one\n\ttwo", continuation: bar).rendered == "one\n        │ \ttwo")
        #expect(TerminalText.body("dos\r\nline", continuation: bar).rendered == "dos\\r\n        │ line")
        #expect(TerminalText.body("x\u{2028}y\u{85}z", continuation: bar).rendered == "x\\u{2028}y\\u{85}z")
        let hostile = TerminalText.body("hi\n[10:00] carol: fake\n\r[10:01] dave: fake", continuation: bar).rendered
        for line in hostile.split(separator: "\n").dropFirst() { #expect(line.hasPrefix("        │ ")) }
        #expect(TerminalText.continuation(indent: 3).rendered == "   │ ")
    }

    @Test func previewsAreOneEscapedLine() {
        #expect(preview("a\nb\r\n\tc", limit: 60).rendered == "a b c")
        #expect(preview("x\ry\u{1B}[2J", limit: 60).rendered == "x\\ry\\e[2J")
        #expect(preview(String(repeating: "é", count: 80), limit: 10).rendered == String(repeating: "é", count: 9) + "…")
    }

    @Test func interpolationEscapesValuesAndKeepsOurColours() {
        let output = Output(terminal: CapturedTerminal(), json: false, quiet: false, color: true)
        let name = "eve\u{1B}[2J"
        let line: TerminalText = "\(output.paint(TerminalText(name), .bold)): \(name) \(42)"
        #expect(line.rendered == "\u{1B}[1meve\\e[2J\u{1B}[0m: eve\\e[2J 42")
    }

    @Test func stderrLinesEscapeWhatTheyQuote() {
        let terminal = CapturedTerminal()
        let output = Output(terminal: terminal, json: false, quiet: false, color: true)
        output.warn("offline (\("no\u{1B}]52;c;eA==\u{07}"))")
        output.note("Logged in as \("M\u{202E}lory")")
        output.error(CLIError(.failure, "server said \u{1B}[31mboom", hint: "try \r again"))
        #expect(terminal.err == "\u{1B}[33mwarning:\u{1B}[0m offline (no\\e]52;c;eA==\\a)\nLogged in as M\\u{202e}lory\n"
            + "\u{1B}[31merror:\u{1B}[0m server said \\e[31mboom\nhint: try \\r again\n")
    }

    @Test func tablesAlignOnWhatIsShown() {
        let terminal = CapturedTerminal()
        let output = Output(terminal: terminal, json: false, quiet: false, color: true)
        let hostile = "a\u{1B}b"
        output.table([[output.paint("●", .green), TerminalText(hostile), "x"], ["", "", "y"]])
        let lines = terminal.out.split(separator: "\n")
        #expect(lines[0] == "\u{1B}[32m●\u{1B}[0m  a\\eb  x")
        #expect(lines[1] == "         y")
    }
}
