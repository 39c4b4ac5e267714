import Testing
@testable import NexusCLI

/// The convos table's fast paths (ASCII cells measured by bytes, previews of plain ASCII
/// kept as they are, all rows written at once) print exactly what the general code did.
/// The references below are the code as it was before them.
// The clock starts when the run queues a test: the limit bounds the whole run (IntegrationTests/TimeLimit.swift).
@Suite(.timeLimit(.minutes(15)))
struct ConvosPrinterEquivalenceTests {
    static let tricky: [String] = [
        "", " ", "plain", " leading", "trailing ", "tab\there", "line\nbreak", "crlf\r\nend", "back\\slash", "C:\\Users\\x",
        "bell\u{07}ring", "esc\u{1B}[31mred", "del\u{7F}", "日本語のメッセージ", "한국어", "🚀 launch 👍🏽 👨\u{200D}👩\u{200D}👧",
        "e\u{301}tude", "❤\u{FE0F} love", "bidi \u{202E}evil", "zero\u{200B}width", "~!@#$%^&*()_+{}|:\"<>?`-=[];',./",
        String(repeating: "a", count: 59), String(repeating: "b", count: 60), String(repeating: "c", count: 61),
        String(repeating: "long words ", count: 20), String(repeating: "日", count: 70), "\t\n  \n", "x\u{0}y",
    ]

    @Test func previewsMatchTheGeneralCode() {
        for text in Self.tricky {
            for limit in [1, 5, 60] {
                #expect(preview(text, limit: limit) == referencePreview(text, limit: limit), "\(text.debugDescription) limit \(limit)")
            }
        }
    }

    @Test func widthsMatchTheGeneralCode() {
        for text in Self.tricky + ["\u{1B}[32m●\u{1B}[0m ", "\u{1B}[1mbold\u{1B}[0m"] {
            #expect(displayWidth(text) == referenceWidth(text), "\(text.debugDescription)")
        }
    }

    @Test(arguments: [false, true]) func tablesMatchTheLineByLineCode(color: Bool) {
        let new = CapturedTerminal(), old = CapturedTerminal()
        let newOut = Output(terminal: new, json: false, quiet: false, color: color)
        let oldOut = Output(terminal: old, json: false, quiet: false, color: color)
        var rows: [[TerminalText]] = []
        for (i, text) in Self.tricky.enumerated() {
            rows.append(["\(i)", newOut.paint("●", .green) + " " + TerminalText(text), "5 min", i % 3 == 0 ? newOut.paint("\(i)", .bold) : "",
                         "You: " + preview(text, limit: 60)])
        }
        let header: [TerminalText] = ["ID", "  NAME", "WHEN", "UNREAD", "LAST MESSAGE"]
        newOut.table(rows, header: header)
        referenceTable(oldOut, rows, header: header)
        #expect(new.out == old.out)
        #expect(!new.out.isEmpty)
    }

    // MARK: the code before the fast paths

    func referencePreview(_ text: String, limit: Int) -> TerminalText {
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
        return TerminalText(stringLiteral: shown.count <= limit ? shown : String(shown.prefix(limit - 1)) + "…")
    }

    /// The general path: prefixing a wide character keeps displayWidth off its ASCII path.
    func referenceWidth(_ s: String) -> Int { displayWidth("日" + s) - 2 }

    func referenceTable(_ output: Output, _ rows: [[TerminalText]], header: [TerminalText]) {
        let all = [header] + rows
        let columns = all.map(\.count).max()!
        var widths = Array(repeating: 0, count: columns)
        for row in all {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], referenceWidth(cell.rendered)) }
        }
        func render(_ row: [TerminalText], bold: Bool) {
            var out = ""
            for (i, cell) in row.enumerated() {
                out += cell.rendered
                if i < row.count - 1 { out += String(repeating: " ", count: widths[i] - referenceWidth(cell.rendered) + 2) }
            }
            output.terminal.writeOut((bold ? output.paint(.control(out), .bold).rendered : out) + "\n")
        }
        render(header, bold: true)
        for row in rows { render(row, bold: false) }
    }
}
