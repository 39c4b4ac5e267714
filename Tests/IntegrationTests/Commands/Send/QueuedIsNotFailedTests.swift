import Foundation
import Testing

/// With nexusd down, a send that is queued safely says it was queued and why, and reading
/// commands name the server they can't reach, which is often no Internet at all.
@Suite(.harness)
struct QueuedIsNotFailedTests {
    @Test func aQueuedSendAndAnOfflineReadNameTheServer() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        try #require(try alice.run(["send", bob.email, "before"]).code == 0)
        let id = String(try #require(try alice.run(["convos", "--json"]).decode(ConvosJSON.self).conversations.first?.id))
        try #require(try alice.run(["history", id]).code == 0)
        server.stop()

        let sent = try alice.run(["send", id, "while it is down"])
        #expect(sent.code == 75, "\(sent.err)")
        #expect(sent.err.contains("Message queued: can't reach the server at \(server.url) (connection refused)"), "\(sent.err)")
        #expect(!sent.err.contains("failed"), "a queued message has not failed: \(sent.err)")

        for args in [["convos"], ["history", id]] {
            let r = try alice.run(args)
            #expect(r.code == 0, "\(args): \(r.err)")
            #expect(r.err.contains("offline: can't reach the server at \(server.url)"), "\(args): \(r.err)")
            #expect(!r.err.contains("No internet"), "\(args): \(r.err)")
        }
    }

    struct ConvosJSON: Decodable {
        struct Row: Decodable { var id: Int64 }
        var conversations: [Row]
    }
}
