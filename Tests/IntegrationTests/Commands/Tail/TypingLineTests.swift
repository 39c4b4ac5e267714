import Foundation
import Testing

/// "Bob is typing…" holds for now only: it ends when it runs out (3 s) or when Bob's
/// message arrives, and on a terminal its line is rewritten in place, so it never stays
/// in `tail -f`'s scrollback nor in `convos -f`'s list.
@Suite(.harness)
struct TypingLineTests {
    private static let typing = "Bob is typing…"

    private func setup() throws -> (TestServer, User, User) {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "hi"]).code == 0)
        return (server, alice, bob)
    }

    /// Seconds until `condition` holds, or nil after `timeout`.
    private func seconds(_ tty: TerminalSession, timeout: Double, until condition: @escaping ([String]) -> Bool) -> Double? {
        let start = Date()
        return tty.wait(timeout: timeout, until: condition) ? Date().timeIntervalSince(start) : nil
    }

    @Test func inATailTheMessageTakesThePlaceOfItsTypingLine() throws {
        let (server, alice, bob) = try setup()
        defer { server.stop() }
        let tty = try TerminalSession(alice, ["tail", "-f"])
        defer { tty.close() }
        #expect(tty.wait { $0.contains { $0.hasSuffix("Bob: hi") } }, "\(tty.screen)")
        #expect(try bob.run(["typing", alice.email]).code == 0)
        #expect(tty.wait { $0.contains { $0.hasSuffix(Self.typing) } }, "\(tty.screen)")
        #expect(try bob.run(["send", alice.email, "ramen at 7?"]).code == 0)
        #expect(tty.wait { $0.contains { $0.hasSuffix("Bob: ramen at 7?") } }, "\(tty.screen)")
        #expect(!tty.everything.contains { $0.contains("is typing") }, "\(tty.everything)")
    }

    @Test func inATailTypingEndsWhenItRunsOut() throws {
        let (server, alice, bob) = try setup()
        defer { server.stop() }
        let tty = try TerminalSession(alice, ["tail", "-f"])
        defer { tty.close() }
        #expect(tty.wait { $0.contains { $0.hasSuffix("Bob: hi") } }, "\(tty.screen)")
        #expect(try bob.run(["typing", alice.email]).code == 0)
        #expect(tty.wait { $0.contains { $0.hasSuffix(Self.typing) } }, "\(tty.screen)")
        // 3 s after it was announced, and a second's poll; the rest is room for a busy machine.
        let gone = seconds(tty, timeout: 15) { !$0.contains { $0.contains("is typing") } }
        #expect(gone.map { $0 < 7 } == true, "still typing after \(gone ?? 15) s: \(tty.screen)")
        #expect(!tty.everything.contains { $0.contains("is typing") }, "\(tty.everything)")
    }

    @Test func convosFollowDropsTypingWhenTheMessageComesOrItRunsOut() throws {
        let (server, alice, bob) = try setup()
        defer { server.stop() }
        let tty = try TerminalSession(alice, ["convos", "-f"])
        defer { tty.close() }
        #expect(tty.wait { $0.contains { $0.contains("Bob") && $0.hasSuffix("hi") } }, "\(tty.screen)")
        #expect(try bob.run(["typing", alice.email]).code == 0)
        #expect(tty.wait { $0.contains { $0.hasSuffix(Self.typing) } }, "\(tty.screen)")
        #expect(try bob.run(["send", alice.email, "ramen at 7?"]).code == 0)
        #expect(tty.wait { $0.contains { $0.hasSuffix("ramen at 7?") } }, "\(tty.screen)")
        #expect(!tty.screen.contains { $0.contains("is typing") }, "the message ends the typing: \(tty.screen)")

        #expect(try bob.run(["typing", alice.email]).code == 0)
        #expect(tty.wait { $0.contains { $0.hasSuffix(Self.typing) } }, "\(tty.screen)")
        let gone = seconds(tty, timeout: 15) { !$0.contains { $0.contains("is typing") } }
        #expect(gone.map { $0 < 7 } == true, "still typing after \(gone ?? 15) s: \(tty.screen)")
    }
}
