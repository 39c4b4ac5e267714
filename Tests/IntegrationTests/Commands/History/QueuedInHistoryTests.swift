import Foundation
import Testing

/// A message queued while the server is down shows at once in `history` and `tail`, after
/// the server's messages and marked as sending, as the optimistic UI shows it; once it is
/// sent it shows once, with its seq. JSON keeps queued messages apart, without a seq.
@Suite(.harness)
struct QueuedInHistoryTests {
    @Test func aQueuedMessageShowsAsSendingThenOnceWithItsSeq() throws {
        var server = try TestServer()
        let (alice, bob) = try server.pair()
        try #require(try alice.run(["send", bob.email, "before"]).code == 0)
        let id = String(try #require(try alice.run(["history", bob.email, "--json"]).decode(Page.self).messages.first?.conversationId))
        server.stop()

        let queued = try alice.run(["send", id, "while it is down"])
        try #require(queued.code == 75, "\(queued.err)")
        let localId = try #require(try alice.run(["queue", "--json"]).decode([QueueRow].self).first?.localId)

        for args in [["history", id], ["tail", id]] {
            let r = try alice.run(args)
            #expect(r.code == 0, "\(args): \(r.err)")
            let last = try #require(r.lines.last { $0.contains("while it is down") }, "\(args): \(r.out)")
            #expect(last.contains("[sending…] You: while it is down"), "\(args): \(last)")
            #expect(last.contains("localId \(localId.prefix(8))"), "\(args): \(last)")
            let before = try #require(r.lines.firstIndex { $0.contains("before") })
            #expect(before < (r.lines.firstIndex(of: last) ?? 0), "after the server's messages: \(r.out)")
        }
        let offline = try alice.run(["history", id, "--json"]).decode(Page.self)
        #expect(offline.messages.map(\.text) == ["before"], "JSON messages all have a seq")
        #expect(offline.queued?.map(\.localId) == [localId])
        #expect(offline.queued?.first?.state == "queued")
        #expect(offline.queued?.first?.status == "sending")
        // NDJSON streams carry only messages with a seq.
        let ndjson = try alice.run(["tail", id, "--json"])
        #expect(!ndjson.out.contains("while it is down"), "\(ndjson.out)")

        server = try TestServer(directory: server.directory, port: server.port, database: server.databasePath)
        try #require(try alice.run(["queue", "flush", "--now"]).code == 0)
        for args in [["history", id], ["tail", id]] {
            let r = try alice.run(args)
            #expect(r.lines.filter { $0.contains("while it is down") }.count == 1, "\(args): shown once: \(r.out)")
            #expect(!r.out.contains("sending…"), "\(args): \(r.out)")
            #expect(r.out.contains("\(id)/2 "), "\(args): with its seq: \(r.out)")
        }
        let online = try alice.run(["history", id, "--json"]).decode(Page.self)
        #expect(online.messages.map(\.text) == ["before", "while it is down"])
        #expect(online.messages.last?.localId == localId)
        #expect(online.queued == nil)
    }

    struct Page: Decodable {
        struct Message: Decodable {
            var conversationId: Int64
            var seq: Int64
            var text: String
            var localId: String
        }
        struct Queued: Decodable {
            var state: String
            var localId: String
            var status: String
        }
        var messages: [Message]
        var queued: [Queued]?
    }

    struct QueueRow: Decodable { var localId: String }
}
