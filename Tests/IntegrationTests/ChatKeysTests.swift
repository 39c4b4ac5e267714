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
}
