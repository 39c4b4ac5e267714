import Foundation
import Testing

/// Writing in `chat` at a real terminal (tmux) against a real nexusd: a reply and a reaction
/// to a message chosen with Tab, a pasted block and Alt-Enter making one message of several
/// lines, Ctrl-P bringing back what was sent, and the mouse wheel scrolling.
@Suite(.harness)
struct ChatWritingTests {
    @Test func tabChoosesAMessageToReplyToAndToReactTo() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "lunch?"]).code == 0)
        #expect(try bob.run(["send", alice.email, "or later"]).code == 0)
        let tty = try TerminalSession(alice, ["chat", bob.email])
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.hasSuffix(" or later") } && s.last == ">" }, "\(tty.screen)")
        tty.send("Tab")
        #expect(tty.wait { s in s.contains { $0.hasPrefix("▶ ") && $0.hasSuffix(" or later") } && s.contains { $0.contains("r reply") } }, "\(tty.screen)")
        tty.send("Up")
        #expect(tty.wait { s in s.contains { $0.hasPrefix("▶ ") && $0.hasSuffix(" lunch?") } }, "\(tty.screen)")
        tty.send("r")
        #expect(tty.wait { s in s.contains { $0.contains("Replying to Bob: lunch?") } && !s.contains { $0.hasPrefix("▶ ") } }, "\(tty.screen)")
        tty.send("yes please", literal: true)
        tty.send("Enter")
        #expect(tty.wait { s in s.contains { $0.contains("↪ reply to 1/1 Bob: lunch?") } && s.contains { $0.hasSuffix("You: yes please  ✓") } }, "\(tty.screen)")
        let reply = try #require(try bob.serverMessages().last)
        #expect(reply.text == "yes please" && reply.replyTo == 1, "\(reply)")

        // e on the chosen message (the newest: my reply's neighbour above is Bob's "or later").
        tty.send("Tab")
        tty.send("Up")
        #expect(tty.wait { s in s.contains { $0.hasPrefix("▶ ") && $0.hasSuffix(" or later") } }, "\(tty.screen)")
        tty.send("e")
        #expect(tty.wait { s in s.contains { $0.contains("React to Bob: or later") } }, "\(tty.screen)")
        tty.send("👍", literal: true)
        tty.send("Enter")
        #expect(tty.wait { s in s.contains { $0.hasSuffix(" or later  👍 1") } }, "\(tty.screen)")
        #expect(try bob.serverMessages().first { $0.seq == 2 }?.reactions?.map(\.emoji) == ["👍"])
    }

    @Test func aPasteOrAltEnterIsOneMessageOfSeveralLinesAndCtrlPRecallsIt() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "send me the log"]).code == 0)
        let tty = try TerminalSession(alice, ["chat", bob.email])
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.hasSuffix(" send me the log") } && s.last == ">" }, "\(tty.screen)")
        try tty.paste("error: disk full\nat /var/log")
        #expect(tty.wait { $0.last == "> error: disk full↵at /var/log" }, "\(tty.screen)")
        tty.send("Enter")
        #expect(tty.wait { s in s.contains { $0.hasSuffix("│ at /var/log  ✓") } }, "\(tty.screen)")
        tty.send("first", literal: true)
        tty.send("M-Enter")
        tty.send("second", literal: true)
        tty.send("Enter")
        #expect(tty.wait { s in s.contains { $0.hasSuffix("│ second  ✓") } }, "\(tty.screen)")
        #expect(try bob.serverMessages().map(\.text) == ["send me the log", "error: disk full\nat /var/log", "first\nsecond"])

        tty.send("draft", literal: true)
        tty.send("C-p")
        #expect(tty.wait { $0.last == "> first↵second" }, "\(tty.screen.suffix(3))")
        tty.send("C-p")
        #expect(tty.wait { $0.last == "> error: disk full↵at /var/log" }, "\(tty.screen)")
        tty.send("Down")
        tty.send("Down")
        #expect(tty.wait { $0.last == "> draft" }, "the line being written comes back: \(tty.screen)")
    }

    /// s on a chosen message saves its files where chat runs, through download's checks:
    /// a file already there is left alone and said so.
    @Test func sSavesTheChosenMessagesFiles() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let folder = try makeTempDir("chat-files")
        let file = try makeTempDir("sent") + "/report.txt"
        try "disk at 97%\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try bob.run(["send", alice.email, "--file", file, "tonight's report"]).code == 0)
        let tty = try TerminalSession(
            alice, shell: "cd " + TerminalSession.quoted(folder) + " && " + TerminalSession.command(["chat", bob.email]) + "; exec sleep 3600")
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.contains("tonight's report") } && s.last == ">" }, "\(tty.screen)")
        tty.send("Tab")
        tty.send("s")
        #expect(tty.wait { s in s.contains { $0.contains("Saved report.txt (12 B).") } }, "\(tty.screen)")
        #expect((try? String(contentsOfFile: folder + "/report.txt", encoding: .utf8)) == "disk at 97%\n")
        tty.send("Tab")
        tty.send("s")
        #expect(tty.wait { s in s.contains { $0.contains("report.txt exists; nothing was written") } }, "\(tty.screen)")
    }

    @Test func theWheelScrollsAndLoadsOlderMessages() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let lines = (1...60).map { "m \($0)" }.joined(separator: "\n") + "\n"
        #expect(try bob.run(["send", alice.email, "--each-line"], stdin: lines).code == 0)
        let tty = try TerminalSession(alice, ["chat", bob.email], width: 80, height: 20)
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.hasSuffix(" m 60") } }, "\(tty.screen)")
        // What a terminal sends for the wheel once the program asked for SGR mouse reports.
        for _ in 0..<30 { tty.send("\u{1B}[<64;10;10M", literal: true) }
        #expect(tty.wait { s in s.contains("No more messages") && s.contains { $0.hasSuffix(" m 1") } }, "\(tty.screen)")
        for _ in 0..<40 { tty.send("\u{1B}[<65;10;10M", literal: true) }
        #expect(tty.wait { s in s.contains { $0.hasSuffix(" m 60") } }, "\(tty.screen)")
    }
}
