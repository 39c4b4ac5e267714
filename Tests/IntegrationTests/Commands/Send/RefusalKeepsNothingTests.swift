import Foundation
import NexusCore
import Testing

/// A command the server refuses for good (no such conversation, user or message; not
/// allowed) fails at once with its exit code and keeps nothing in the outbox, as a usage
/// error; a message queued offline that meets such a refusal later fails and stays, for
/// `queue drop --failed`. localIds may be cut short to a unique prefix. Real nexusd, real
/// nexusctl processes.
@Suite(.harness)
struct RefusalKeepsNothingTests {
    struct Entry: Decodable { var localId: String; var status: String }

    func entries(_ user: User) throws -> [Entry] {
        try user.run(["queue", "--json"]).decode([Entry].self)
    }

    @Test func refusedCommandsKeepNothing() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        var carol = try User("carol", server: server.url)
        try carol.register()
        carol.server = server.url
        let direct = String(try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id)
        #expect(try alice.run(["send", direct, "hello"]).code == 0)

        let refused: [(args: [String], code: Int32)] = [
            (["send", "999", "hi"], 3),
            (["send", "nobody@example.com", "hi"], 3),
            (["send", alice.email, "hi"], 1),
            (["edit", "\(direct)/999", "x"], 3),
            (["add", direct, carol.email], 1),
        ]
        for (args, code) in refused {
            let r = try alice.run(args)
            #expect(r.code == code, "\(args): exit \(r.code) \(r.err)")
            #expect(try entries(alice).isEmpty, "\(args) left a record in the outbox")
        }
        let profiles = try alice.run(["profiles"]).out
        #expect(!profiles.contains("failed"), "\(profiles)")
    }

    @Test func aRefusalAtFlushTimeFailsAndIsDroppedWithFailed() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, _) = try server.pair()
        var offline = alice
        offline.server = "http://127.0.0.1:9"
        #expect(try offline.run(["send", "999", "queued while offline"]).code == 75)
        let flush = try alice.run(["queue", "flush", "--now"])
        #expect(flush.code == 3, "\(flush.out) \(flush.err)")
        #expect(try entries(alice).map(\.status) == ["failed"], "reported and kept, as before")
        #expect(try alice.run(["profiles"]).out.contains("1 failed"))

        let drop = try alice.run(["queue", "drop", "--failed", "--yes"])
        #expect(drop.code == 0, "\(drop.err)")
        #expect(try entries(alice).isEmpty)
    }

    @Test func localIdsTakeAUniquePrefixAndDropAllEmptiesTheOutbox() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let direct = String(try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id)
        var offline = alice
        offline.server = "http://127.0.0.1:9"
        // 17 localIds of 16 hex digits: two of them start alike.
        let ids = try offline.queueOffline(17, to: direct)
        let firsts = Dictionary(grouping: ids, by: { String($0.prefix(1)) })
        let (shared, sharing) = try #require(firsts.first { $0.value.count > 1 })
        let ambiguous = try alice.run(["queue", "drop", "--yes", shared])
        #expect(ambiguous.code == 2, "\(ambiguous.err)")
        #expect(sharing.allSatisfy { ambiguous.err.contains($0) }, "the candidates are named: \(ambiguous.err)")
        #expect(try entries(alice).count == 17, "nothing dropped")

        let one = ids[3]
        let prefix = String(one.prefix(13))
        let drop = try alice.run(["queue", "drop", "--yes", "--json", prefix])
        #expect(drop.code == 0, "\(drop.err)")
        #expect(drop.out.contains(one))
        #expect(try entries(alice).count == 16)

        #expect(try alice.run(["queue", "drop", "--all", "--yes"]).code == 0)
        #expect(try entries(alice).isEmpty)
    }
}
