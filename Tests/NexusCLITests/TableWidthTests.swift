import Testing
@testable import NexusCLI

/// Tables line up on a terminal: colour codes take no columns, wide characters two.
struct TableWidthTests {
    @Test(arguments: [
        ("abc", 3), ("日本語", 6), ("한국", 4), ("🚀", 2), ("☕", 2), ("👍🏽", 2), ("👨\u{200D}👩\u{200D}👧", 2),
        ("e\u{301}", 1), ("❤\u{FE0F}", 1), ("\u{1B}[32m●\u{1B}[0m b", 3), ("🦀 crab", 7), ("🫠", 2),
    ])
    func displayWidths(_ text: String, _ width: Int) {
        #expect(displayWidth(text) == width, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test func colouredWideCellsKeepTheColumnsStraight() {
        let terminal = CapturedTerminal()
        terminal.outputIsTerminal = true
        let output = Output(terminal: terminal, json: false, quiet: false, color: true)
        output.table(
            [["1", output.paint("●", .green) + " 日本語", "Just now", "x"], ["22", "  🚀 launch", "5 min", "y"], ["3", "  plain", "Mon", "z"]],
            header: ["ID", "  NAME", "WHEN", "LAST"])
        let visible = terminal.out.replacing(/\u{1B}\[[0-9]*m/, with: "")
        // Counted by hand: the NAME column is 11 wide ("  🚀 launch"), WHEN 8 ("Just now").
        #expect(visible == """
            ID    NAME       WHEN      LAST
            1   ● 日本語     Just now  x
            22    🚀 launch  5 min     y
            3     plain      Mon       z

            """, "\(visible)")
    }
}
