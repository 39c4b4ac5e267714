import Foundation
import NexusCore
import Testing

/// Issue 18: on SQLite the search index lags the commit (new messages wait in
/// search_pending and a background task indexes them in batches, so sends don't pay
/// FTS5's per-transaction cost). Searches must not tell: messages still waiting are found
/// with the same syntax, their edits and deletes count, and once indexed the answers are
/// the same. On PostgreSQL (no lag) the same answers hold.
@Suite(.harness)
struct SearchIndexLagTests {
    static let texts = [
        "Lunch at the Café tomorrow?", "Sure, the CAFE near the deploy pipeline", "東京タワーに行った 🎉 party",
        "deployment failed: error 42 in stage two", "ERROR: 42 is not the answer", "a secret to delete",
    ]

    struct Hit: Decodable { var ref: String }

    func seqs(_ user: User, _ args: [String]) throws -> [Int] {
        let r = try user.run(["search", "--json"] + args)
        guard r.code == 0 else { throw HarnessError("search \(args) exited \(r.code): \(r.err)") }
        return r.decodeLines(Hit.self).map { Int($0.ref.split(separator: "/").last!)! }
    }

    /// Messages waiting for the index, read on the database itself (SQLite only).
    func waiting(_ server: TestServer) throws -> Int {
        let r = try runTool("sqlite3", ["-cmd", ".timeout 5000", server.databasePath, "SELECT COUNT(*) FROM search_pending"])
        guard r.code == 0, let n = Int(r.out.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw HarnessError("sqlite3: \(r.err)") }
        return n
    }

    func answers(_ bob: User) throws -> [[Int]] {
        try [
            seqs(bob, ["cafe"]), seqs(bob, ["café"]), seqs(bob, ["--", "cafe", "-lunch"]), seqs(bob, ["deploy*"]),
            seqs(bob, [#""error 42""#]), seqs(bob, [#""42 error""#]), seqs(bob, ["🎉"]), seqs(bob, ["タワー"]),
            seqs(bob, ["--", "42", "-deployment"]), seqs(bob, ["secret"]), seqs(bob, ["brunch"]), seqs(bob, ["lunch"]),
        ]
    }

    @Test func messagesWaitingForTheIndexAreFoundAsIndexedOnesAre() throws {
        // An indexer that rests an hour once idle: what is sent now waits.
        var server = try TestServer(extraArguments: ["--search-index-idle-ms", "3600000"])
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let id = String(try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id)
        for text in Self.texts { try #require(try alice.run(["send", id, text]).code == 0) }
        #expect(try alice.run(["edit", "\(id)/1", "Brunch at the Café tomorrow?"]).code == 0)
        #expect(try alice.run(["delete", "\(id)/6"]).code == 0)
        if Backend.postgres == nil { #expect(try waiting(server) == 6, "the messages were indexed at once") }

        let expected: [[Int]] = [[2, 1], [2, 1], [2, 1], [4, 2], [5, 4], [], [3], [3], [5], [], [1], []]
        let waitingAnswers = try answers(bob)
        #expect(waitingAnswers == expected)
        // A stranger finds nothing, waiting or not.
        let carol = try User("carol", server: server.url)
        try carol.register(name: "Carol")
        #expect(try seqs(carol, ["cafe"]) == [])

        // Indexed now (a restart with the usual rest): the same answers, and the index follows
        // later edits and deletes.
        server.stop()
        server = try TestServer(directory: server.directory, port: server.port, database: server.databasePath)
        if Backend.postgres == nil {
            let deadline = Date().addingTimeInterval(20)
            while try waiting(server) > 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            #expect(try waiting(server) == 0, "the indexer left messages waiting")
        }
        #expect(try answers(bob) == expected)
        #expect(try alice.run(["edit", "\(id)/2", "Sure, the bistro near the pipeline"]).code == 0)
        #expect(try alice.run(["delete", "\(id)/3"]).code == 0)
        #expect(try seqs(bob, ["cafe"]) == [1])
        #expect(try seqs(bob, ["bistro"]) == [2])
        #expect(try seqs(bob, ["🎉"]) == [])
    }

    // A long backlog (here 12,000 messages held out of the index, then a restart) is
    // indexed while nexusd serves: /healthz answers at once, the log tells the progress,
    // and every message is found afterwards.
    @Test func aBacklogIsIndexedWhileServingWithProgressInTheLog() throws {
        var server = try TestServer(extraArguments: ["--search-index-idle-ms", "3600000"])
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let id = try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id
        let api = try alice.api()
        for b in 0..<24 {
            _ = try api.sendBatch((0..<500).map { BatchItem(conversationId: id, localId: "b\(b)-\($0)", text: "backlog item\(b * 500 + $0) w\($0 % 7)") })
        }
        server.stop()
        server = try TestServer(directory: server.directory, port: server.port, database: server.databasePath, logLevel: "notice")
        let health = try HTTPClient(address: try ServerAddress.list(parsing: server.url)[0]).request("GET", "/healthz")
        #expect(health.status == 200)
        if Backend.postgres == nil {
            #expect(server.log.wait(timeout: 60) { $0.contains { $0.contains("search index: 12000 messages wait for the index") } }, "\(server.log.text)")
            #expect(server.log.wait(timeout: 60) { $0.contains { $0.contains("search index: 12000 messages indexed, 0 to go") } }, "\(server.log.text)")
            #expect(try waiting(server) == 0)
        }
        #expect(try seqs(bob, ["item11999"]) == [12000])
        #expect(try seqs(bob, ["item0"]) == [1])
    }
}
