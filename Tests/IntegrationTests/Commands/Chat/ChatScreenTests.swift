import Foundation
import Testing

/// `nexusctl chat` in a real terminal (tmux), against a real nexusd: the list, the chat
/// screen, sending through the outbox and what others wrote shown inert.
@Suite(.harness)
struct ChatScreenTests {
    private func row(_ screen: [String], containing text: String) -> Int? { screen.firstIndex { $0.contains(text) } }

    @Test func refusedWithoutATerminalNamingTailAndSend() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, _) = try server.pair()
        let r = try alice.run(["chat"])
        #expect(r.code == 2, "\(r)")
        #expect(r.err.contains("tail -f") && r.err.contains("send"), "\(r.err)")
        #expect(r.out.isEmpty)
        // On a terminal, but TERM=dumb.
        let tty = try TerminalSession(alice, shell: "TERM=dumb " + TerminalSession.command(["chat"]) + "; echo \"[exit $?]\"; exec sleep 3600")
        defer { tty.close() }
        #expect(tty.exitCode() == 2, "\(tty.screen)")
        #expect(tty.screen.joined(separator: "\n").contains("TERM is dumb"), "\(tty.screen)")
    }

    @Test func theListIsInConvosOrderWithUnreadCountsAndMovesLive() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, carol) = try server.trio()
        #expect(try bob.run(["send", alice.email, "one"]).code == 0)
        #expect(try bob.run(["send", alice.email, "two"]).code == 0)
        #expect(try carol.run(["send", alice.email, "from carol"]).code == 0)
        let tty = try TerminalSession(alice, ["chat"])
        defer { tty.close() }
        #expect(tty.wait { s in
            guard let c = row(s, containing: "Carol (1)"), let b = row(s, containing: "Bob (2)") else { return false }
            return c < b && s[c].contains("from carol") && s[b].contains("two")
        }, "\(tty.screen)")
        // Bob writes again: his conversation goes to the top, its count up.
        #expect(try bob.run(["send", alice.email, "three"]).code == 0)
        #expect(tty.wait { s in
            guard let c = row(s, containing: "Carol (1)"), let b = row(s, containing: "Bob (3)") else { return false }
            return b < c
        }, "\(tty.screen)")
        // "/" filters by name; Enter opens the one left.
        tty.send("/")
        tty.send("car", literal: true)
        #expect(tty.wait { s in row(s, containing: "Bob (3)") == nil && row(s, containing: "Carol (1)") != nil }, "\(tty.screen)")
        tty.send("Enter")
        #expect(tty.wait { s in s.contains { $0.contains("from carol") } && s.last == ">" && row(s, containing: "Carol") == 0 }, "\(tty.screen)")
        // Ctrl-N opens the next conversation with unread messages: Bob's, round from the top.
        tty.send("C-n")
        #expect(tty.wait { s in s.first?.hasPrefix("Bob") == true && s.contains { $0.contains("three") } }, "\(tty.screen)")
        tty.send("C-c")
        #expect(tty.exitCode() == 0, "\(tty.screen)")
    }

    @Test func aSentMessageGoesFromSendingToSentToDeliveredToRead() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "hi alice"]).code == 0)
        let port = server.port
        let tty = try TerminalSession(alice, ["chat", bob.email])
        defer { tty.close() }
        #expect(tty.wait { s in s.first?.hasPrefix("Bob · ") == true && s.contains { $0.contains("hi alice") } }, "\(tty.screen)")
        // With the server gone the message is on disk and on screen as sending, under the banner.
        server.stop()
        tty.send("hello bob", literal: true)
        tty.send("Enter")
        #expect(tty.wait { s in s.contains { $0.contains("You: hello bob  sending…") } && s.contains { $0.contains("offline — ") && $0.contains("127.0.0.1:\(port)") } }, "\(tty.screen)")
        #expect(try alice.outboxEntries().count == 1)
        // Back: it goes, ✓ once the server has it.
        let back = try TestServer(directory: server.directory, port: port)
        defer { back.stop() }
        #expect(tty.wait(timeout: 20) { s in s.contains { $0.hasSuffix("You: hello bob  ✓") } && !s.contains { $0.contains("offline — ") } }, "\(tty.screen)")
        #expect(try alice.outboxEntries().isEmpty)
        // Bob's tail stores it: delivered. Bob reads: read.
        #expect(try bob.run(["tail", alice.email]).out.contains("hello bob"))
        #expect(tty.wait { s in s.contains { $0.hasSuffix("You: hello bob  ✓✓") } }, "\(tty.screen)")
        #expect(try bob.run(["read", alice.email]).code == 0)
        #expect(tty.wait { s in s.contains { $0.hasSuffix("You: hello bob  ✓✓ Read") } }, "\(tty.screen)")
        // Bob got it once.
        #expect(try bob.serverMessages().filter { $0.text == "hello bob" }.count == 1)
    }

    @Test func typingAppearsAndRunsOut() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "hi"]).code == 0)
        let tty = try TerminalSession(alice, ["chat", bob.email])
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.contains("hi") } && s.first?.hasPrefix("Bob") == true }, "\(tty.screen)")
        // A message sent now comes through the feed: once it shows, the feed is following.
        #expect(try bob.run(["send", alice.email, "you there?"]).code == 0)
        #expect(tty.wait { s in s.contains { $0.hasSuffix(" you there?") } }, "\(tty.screen)")
        // One announcement, wherever it falls between the feed's polls (AnswerTimes).
        #expect(try bob.run(["typing", alice.email]).code == 0)
        #expect(tty.wait { s in s.count > 1 && s[1] == "Bob is typing…" }, "\(tty.screen)")
        // It runs out (3 s) with nothing else happening.
        #expect(tty.wait(timeout: 8) { s in !s.contains { $0.contains("is typing") } }, "\(tty.screen)")
        #expect(tty.screen.first?.hasPrefix("Bob") == true, "\(tty.screen)")
    }

    @Test func othersTextIsShownInert() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let hostile = "\u{1B}[2J\u{1B}]0;pwned\u{07}evil \u{202E}txt.exe\n10:00 You: fake  ✓✓ Read"
        #expect(try bob.run(["send", alice.email, hostile]).code == 0)
        let tty = try TerminalSession(alice, ["chat", bob.email])
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.contains("\\e[2J\\e]0;pwned\\aevil \\u{202e}txt.exe") } }, "\(tty.screen)")
        let screen = tty.screen
        // The fake line is a continuation of Bob's message, marked, never one of mine.
        #expect(screen.contains { $0.hasPrefix("      │ 10:00 You: fake") }, "\(screen)")
        #expect(!screen.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("10:00 You: fake") }, "\(screen)")
        #expect(screen.first?.hasPrefix("Bob · ") == true, "\(screen)")
    }
}
