import Foundation
import NexusCore
import Testing

/// Reacting to a message, or replying to it, shows it was read: the author's read mark moves
/// to it, as the product documents' chat screen does. On both backends.
@Suite(.harness)
struct AnsweringMarksReadTests {
    @Test func aReactionOrAReplyMarksTheMessageRead() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let c = try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id
        for text in ["one", "two", "three"] { #expect(try alice.run(["send", "\(c)", text]).code == 0) }
        func bobsMark() throws -> Int64? {
            try alice.run(["members", "\(c)", "--json"]).decode(MembersResponse.self).members.first { $0.user.email == bob.email }?.readSeq
        }
        #expect(try bobsMark() == 0)
        #expect(try bob.run(["react", "\(c)/2", "👍"]).code == 0)
        #expect(try bobsMark() == 2)
        #expect(try alice.run(["history", "\(c)"]).out.contains("two"))
        // A reaction to an older message never moves the mark back.
        #expect(try bob.run(["send", "\(c)", "--reply-to", "\(c)/3", "yes"]).code == 0)
        #expect(try bobsMark() == 3)
        #expect(try bob.run(["react", "\(c)/1", "❤️"]).code == 0)
        #expect(try bobsMark() == 3)
    }
}
