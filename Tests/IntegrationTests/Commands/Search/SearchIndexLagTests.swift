import Foundation
@testable import NexusCore
import Testing

/// On SQLite the search index lags the commit (messages after the mark
/// search_indexed.up_to wait, and a background task indexes them in batches, so sends don't pay
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
        try Backend.count("SELECT COUNT(*) FROM messages WHERE id > (SELECT up_to FROM search_indexed)", on: server.databasePath)
    }

    /// The index's mark (SQLite only).
    func mark(_ server: TestServer) throws -> Int {
        try Backend.count("SELECT up_to FROM search_indexed", on: server.databasePath)
    }

    /// Alice's conversation with Bob: `texts`, the first edited, the last deleted.
    func conversation(on server: TestServer) throws -> (alice: User, bob: User, id: String) {
        let (alice, bob) = try server.pair()
        let id = String(try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id)
        for text in Self.texts { try #require(try alice.run(["send", id, text]).code == 0) }
        #expect(try alice.run(["edit", "\(id)/1", "Brunch at the Café tomorrow?"]).code == 0)
        #expect(try alice.run(["delete", "\(id)/6"]).code == 0)
        return (alice, bob, id)
    }

    /// What `answers` reads of that conversation, waiting for the index or not.
    static let expected: [[Int]] = [[2, 1], [2, 1], [2, 1], [4, 2], [5, 4], [], [3], [3], [5], [], [1], []]

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
        let (alice, bob, id) = try conversation(on: server)
        if Backend.postgres == nil { #expect(try waiting(server) == 6, "the messages were indexed at once") }

        #expect(try answers(bob) == Self.expected)
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
        #expect(try answers(bob) == Self.expected)
        #expect(try alice.run(["edit", "\(id)/2", "Sure, the bistro near the pipeline"]).code == 0)
        #expect(try alice.run(["delete", "\(id)/3"]).code == 0)
        #expect(try seqs(bob, ["cafe"]) == [1])
        #expect(try seqs(bob, ["bistro"]) == [2])
        #expect(try seqs(bob, ["🎉"]) == [])
    }

    // Schema version 13 made the index anew with a mark in place of the queue. A database of
    // version 12, messages 1-3 indexed and 4-6 queued (its own statements, below), is indexed
    // whole again after the upgrade, and every answer stays the same.
    @Test func anIndexOfVersion12IsMadeAnewOnUpgrade() throws {
        guard Backend.postgres == nil else { return }
        var server = try TestServer()
        defer { server.stop() }
        let (alice, bob, id) = try conversation(on: server)
        server.stop()
        // The sqlite3 shell's FTS5 (3.40 on Debian 12) can't open an index that secure-delete
        // has rewritten (SQLiteSchema), nor drop it: its row in the schema goes first, then
        // its tables, as plain tables, in a second run that reads the schema afresh.
        try Backend.execute("PRAGMA writable_schema=ON; DELETE FROM sqlite_master WHERE name = 'messages_fts';", on: server.databasePath)
        let version12 = """
            DROP TRIGGER messages_fts_update; DROP TRIGGER messages_fts_delete; DROP TABLE search_indexed;
            DROP TABLE messages_fts_data; DROP TABLE messages_fts_idx; DROP TABLE messages_fts_config;
            CREATE VIRTUAL TABLE messages_fts USING fts5(
                text, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
            CREATE TABLE search_pending (id INTEGER PRIMARY KEY);
            INSERT INTO messages_fts(rowid, text) SELECT id, text FROM messages WHERE id <= 3;
            INSERT INTO search_pending(id) SELECT id FROM messages WHERE id > 3;
            CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
                INSERT INTO search_pending(id) VALUES (NEW.id);
            END;
            CREATE TRIGGER messages_fts_update AFTER UPDATE OF text ON messages
            WHEN NOT EXISTS (SELECT 1 FROM search_pending WHERE id = OLD.id) BEGIN
                INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', OLD.id, OLD.text);
                INSERT INTO messages_fts(rowid, text) VALUES (NEW.id, NEW.text);
            END;
            CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
                INSERT INTO messages_fts(messages_fts, rowid, text)
                    SELECT 'delete', OLD.id, OLD.text WHERE NOT EXISTS (SELECT 1 FROM search_pending WHERE id = OLD.id);
                DELETE FROM search_pending WHERE id = OLD.id;
            END;
            DELETE FROM schema_migrations WHERE version IN (13, 14);
            """
        try Backend.execute(version12, on: server.databasePath)
        // The later migrations' undo, once the index is one the sqlite3 shell reads.
        try Backend.undoSQLiteMigrations(after: 14, on: server.databasePath)

        server = try TestServer(directory: server.directory, port: server.port, database: server.databasePath)
        let deadline = Date().addingTimeInterval(20)
        while try mark(server) < 6 && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(try mark(server) == 6)
        #expect(try Backend.count("SELECT MAX(id) FROM messages", on: server.databasePath) == 6)
        let schema = try runTool("sqlite3", [server.databasePath, "SELECT sql FROM sqlite_master WHERE name = 'messages_fts'"])
        #expect(schema.out.contains("columnsize=0"), "\(schema.out)")
        #expect(try answers(bob) == Self.expected)
        #expect(try alice.run(["edit", "\(id)/2", "Sure, the bistro near the pipeline"]).code == 0)
        #expect(try seqs(bob, ["cafe"]) == [1])
        #expect(try seqs(bob, ["bistro"]) == [2])
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
