import Foundation
import Testing

/// `chat`'s keys in a real terminal (tmux) against a real nexusd: a line over the limit,
/// the keys screen and the footers, and retrying what failed.
@Suite(.harness)
struct ChatKeysTests {
    @Test func aLineOverTheLimitSaysWhyAndStaysOnTheLine() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "hi"]).code == 0)
        let tty = try TerminalSession(alice, ["chat", bob.email])
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.hasSuffix(" hi") } && s.last == ">" }, "\(tty.screen)")
        // 65,540 bytes, four over; tmux takes a command of at most 16 KiB, so in pieces.
        for _ in 0..<8 { tty.send(String(repeating: "x", count: 8192), literal: true) }
        tty.send("END!", literal: true)
        #expect(tty.wait { $0.last?.hasSuffix("xEND!") == true }, "\(tty.screen)")
        tty.send("Enter")
        #expect(tty.wait { s in
            s.contains { $0.contains("Not sent: message text is 65540 bytes; the limit is 65536 bytes") } && s.last?.hasSuffix("xEND!") == true
        }, "\(tty.screen)")
        #expect(try alice.outboxEntries().isEmpty)
        // Nothing was lost: four characters fewer, at the limit, and it goes.
        tty.send("BSpace", "BSpace", "BSpace", "BSpace")
        #expect(tty.wait { s in !s.contains { $0.contains("Not sent") } && s.last?.hasSuffix("xxxx") == true }, "\(tty.screen)")
        tty.send("Enter")
        #expect(tty.wait { s in s.contains { $0.hasSuffix("xx  ✓") } && s.last == ">" }, "\(tty.screen)")
        #expect(try bob.serverMessages().map(\.text.utf8.count) == [2, 65536])
    }

    @Test func questionMarkListsTheKeysAndTheFootersFitTheWidth() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "hi"]).code == 0)
        let tty = try TerminalSession(alice, ["chat"], width: 100, height: 30)
        defer { tty.close() }
        #expect(tty.wait { s in
            s.contains { $0.contains("Bob") && $0.contains("hi") } && s.last == "↑↓ move · Enter open · c new · n next unread · / filter · q quit · ? keys"
        }, "\(tty.screen)")
        tty.send("?")
        #expect(tty.wait { s in
            s.first == "Keys" && s.contains { $0.hasPrefix("  /") && $0.contains("filter by name") } && s.contains { $0.hasPrefix("  Ctrl-Z") }
                && s.last == "Any key goes back"
        }, "\(tty.screen)")
        // Any key goes back, and does nothing else: q would have quit.
        tty.send("q")
        #expect(tty.wait { s in s.first == "Conversations" && s.contains { $0.hasPrefix("> ") && $0.contains("Bob") } }, "\(tty.screen)")
        tty.send("Enter")
        #expect(tty.wait { s in s.first?.hasPrefix("Bob") == true && s.count > 1 && s[s.count - 2] == "Enter send · ↑ edit · Esc list · Tab choose · PgUp/PgDn scroll · Ctrl-N next unread · ? keys" }, "\(tty.screen)")
        // On an empty line ? is the keys; Esc goes back, and the line is still empty.
        tty.send("?")
        #expect(tty.wait { s in s.first == "Keys" && s.contains { $0.hasPrefix("  Ctrl-W") } && s.contains { $0.hasPrefix("  PgUp, PgDn") } }, "\(tty.screen)")
        tty.send("Escape")
        #expect(tty.wait { s in s.first?.hasPrefix("Bob") == true && s.last == ">" }, "\(tty.screen)")
        // Within a line it is a question mark.
        tty.send("why?", literal: true)
        #expect(tty.wait { $0.last == "> why?" }, "\(tty.screen)")
        // Narrow, the footer keeps what matters most and the way to the rest.
        tty.resize(width: 40, height: 12)
        #expect(tty.wait { s in s.count > 1 && s[s.count - 2] == "Enter send · ↑ edit · Esc list · ? keys" }, "\(tty.screen)")
    }

    @Test func ctrlRRetriesTheFailedMessagesShownAsRetryDoes() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, carol) = try server.trio()
        let toBob = try conversation(alice, with: bob), toCarol = try conversation(alice, with: carol)
        #expect(try bob.run(["send", toBob, "hi"]).code == 0)
        // Refused for a revoked login, as in OutboxDeliveryTests: failed, and never retried by itself.
        try alice.revokeTokenKeepingSession()
        #expect(try alice.run(["send", toBob, "to bob"]).code == 4)
        #expect(try alice.run(["send", toCarol, "to carol"]).code == 4)
        #expect(try alice.run(["login", alice.email, "--password-stdin"], stdin: "password123\n").code == 0)
        #expect(try alice.outboxEntries().map(\.status) == ["failed", "failed"])
        let tty = try TerminalSession(alice, ["chat", toBob], width: 120)
        defer { tty.close() }
        #expect(tty.wait { s in
            s.contains { $0.contains("You: to bob  ✗ failed: ") && $0.contains("sign") } && s.count > 1 && s[s.count - 2].hasPrefix("Enter send · Ctrl-R retry · ")
        }, "\(tty.screen)")
        tty.send("C-r")
        #expect(tty.wait { s in s.contains { $0.hasSuffix("You: to bob  ✓") } && !s.contains { $0.contains("Ctrl-R") } }, "\(tty.screen)")
        #expect(try bob.serverMessages().map(\.text) == ["hi", "to bob"])
        // Only what this conversation shows: Carol's is still failed.
        #expect(try alice.outboxEntries().map { [$0.text, $0.status] } == [["to carol", "failed"]])
        tty.send("C-r")
        #expect(tty.wait { s in s.contains { $0.contains("Nothing here failed") } }, "\(tty.screen)")
        #expect(try carol.serverMessages().isEmpty)
    }

    private func conversation(_ user: User, with other: User) throws -> String {
        let doc = try #require(try user.run(["new", other.email, "--json"]).json() as? [String: Any])
        return "\(try #require((doc["conversation"] as? [String: Any])?["id"] as? Int))"
    }
}
