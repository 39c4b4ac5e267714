import Foundation
import NexusCore
import Testing

/// A member's reactions on one message are bounded (20 by default, docs/messages.md): the
/// real nexusctl's refused reaction fails at once and leaves nothing in the outbox to retry.
@Suite(.harness)
struct ReactionLimitTests {
    @Test func theReactionPastTheLimitFailsAtOnceAndIsNotQueued() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        let c = try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id
        #expect(try alice.run(["send", "\(c)", "hello"]).code == 0)
        for i in 1...20 {
            let r = try bob.run(["react", "\(c)/1", "e\(i)"])
            #expect(r.code == 0, "reaction \(i): \(r.err)")
        }
        let over = try bob.run(["react", "\(c)/1", "e21"])
        #expect(over.code == 1, "\(over.out) \(over.err)")
        #expect(over.err.contains("You have 20 reactions on message \(c)/1") && over.err.contains("remove one first"), "\(over.err)")
        #expect(try bob.run(["queue", "--json"]).out.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        // The same emoji again is no new reaction: still fine at the limit.
        #expect(try bob.run(["react", "\(c)/1", "e20"]).code == 0)
        _ = server
    }
}
