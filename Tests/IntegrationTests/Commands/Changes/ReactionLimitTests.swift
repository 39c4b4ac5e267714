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

    /// The reaction and outgoing-hook bounds are nexusd's options, checked at its start.
    @Test func theBoundsAreNexusdsOptions() throws {
        let server = try TestServer(extraArguments: [
            "--max-reactions-per-message", "3", "--max-reactions-per-member", "2", "--max-outgoing-hooks", "2",
            "--max-outgoing-hooks-per-member", "1",
        ])
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let c = try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id
        #expect(try alice.run(["send", "\(c)", "hello"]).code == 0)
        for e in ["e1", "e2"] { #expect(try bob.run(["react", "\(c)/1", e]).code == 0) }
        let mine = try bob.run(["react", "\(c)/1", "e3"])
        #expect(mine.code == 1 && mine.err.contains("You have 2 reactions on message \(c)/1"), "\(mine.err)")
        #expect(try alice.run(["react", "\(c)/1", "a1"]).code == 0)
        let distinct = try alice.run(["react", "\(c)/1", "a2"])
        #expect(distinct.code == 1 && distinct.err.contains("has 3 different reactions"), "\(distinct.err)")

        #expect(try alice.run(["hook", "create", "\(c)", "--url", "http://127.0.0.1:9/a"]).code == 0)
        let second = try alice.run(["hook", "create", "\(c)", "--url", "http://127.0.0.1:9/b"])
        #expect(second.code != 0 && second.err.contains("You have 1 outgoing hooks here"), "\(second.err)")
        #expect(try bob.run(["hook", "create", "\(c)", "--url", "http://127.0.0.1:9/c"]).code == 0)
        let third = try bob.run(["hook", "create", "\(c)", "--url", "http://127.0.0.1:9/d"])
        #expect(third.code != 0 && third.err.contains("outgoing hooks here"), "\(third.err)")

        let refused = try runTool(Binaries.nexusd, ["--max-reactions-per-message", "0", "--listen", "127.0.0.1:0"])
        #expect(refused.code != 0 && refused.err.contains("--max-reactions-per-message must be between 1 and 1000; got 0"), "\(refused.err)")
    }
}
