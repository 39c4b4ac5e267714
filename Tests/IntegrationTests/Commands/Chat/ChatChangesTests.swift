import Foundation
import Testing

/// Edits, reactions and deletes reach an open `chat` as changes, not as the message again:
/// the screen applies each to the message it shows.
@Suite(.harness)
struct ChatChangesTests {
    @Test func anEditAReactionAndADeleteChangeTheMessageShown() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "first draft"]).code == 0)
        #expect(try bob.run(["send", alice.email, "keep me"]).code == 0)
        let tty = try TerminalSession(alice, ["chat", bob.email])
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.hasSuffix("keep me") } }, "\(tty.screen)")
        let c = try #require(try bob.run(["convos", "--json"]).json() as? [String: Any])
        let id = try #require(((c["conversations"] as? [[String: Any]])?.first?["id"] as? NSNumber)?.int64Value)

        #expect(try bob.run(["edit", "\(id)/1", "final words"]).code == 0)
        #expect(tty.wait { s in s.contains { $0.contains("final words (edited)") } }, "\(tty.screen)")
        #expect(try bob.run(["react", "\(id)/2", "👍"]).code == 0)
        #expect(tty.wait { s in s.contains { $0.contains("keep me") && $0.contains("👍 1") } }, "\(tty.screen)")
        #expect(try bob.run(["delete", "\(id)/1"]).code == 0)
        #expect(tty.wait { s in s.contains { $0.contains("message deleted") } && !s.contains { $0.contains("final words") } }, "\(tty.screen)")
    }
}
