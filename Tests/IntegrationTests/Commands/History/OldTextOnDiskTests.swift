import Foundation
import NexusCore
import Testing

/// "Delete for everyone" and an edit keep no copy of the old text (docs/protocol.md): not
/// in the message's row, not in the search index's words, not in pages SQLite freed. The
/// database's bytes are searched after a clean stop: the SQLite file and its WAL, or a
/// pg_dump on PostgreSQL (whose dead row versions go with VACUUM, docs/deploy.md).
@Suite(.harness)
struct OldTextOnDiskTests {
    struct Hit: Decodable { var ref: String }

    @Test func aDeleteAndAnEditLeaveNoWordOfTheOldTextOnDisk() throws {
        let server = try TestServer(extraArguments: ["--search-index-idle-ms", "50"])
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let c = try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id
        // Words no other text holds, as the index stores them (lower case, no accents).
        let tag = UUID().uuidString.prefix(8).lowercased()
        let deleted = ["quokka\(tag)", "zither\(tag)"], edited = ["marmoset\(tag)"], kept = "ocelot\(tag)", new = "narwhal\(tag)"
        for text in [deleted.joined(separator: " "), "\(edited[0]) at noon", "\(kept) stays"] + (1...30).map({ "filler \($0)" }) {
            try #require(try alice.run(["send", "\(c)", text]).code == 0)
        }
        // In the index, not waiting for it: the index's words are what is searched for.
        if Backend.postgres == nil { try waitUntilIndexed(server) }
        #expect(try refs(bob, deleted[0]) == ["\(c)/1"])

        #expect(try alice.run(["delete", "\(c)/1"]).code == 0)
        #expect(try alice.run(["edit", "\(c)/2", "\(new) at noon"]).code == 0)
        #expect(try refs(bob, deleted[0]) == [])
        #expect(try refs(bob, edited[0]) == [])
        #expect(try refs(bob, new) == ["\(c)/2"])
        server.stop()

        let stored = try Backend.contents(of: server.databasePath)
        #expect(holds(stored, kept), "the database's bytes do not hold a kept message")
        for word in deleted + edited {
            #expect(!holds(stored, word), "\(word) is still in the \(Backend.name) database after its message changed")
        }
        if Backend.postgres != nil {
            // pg_dump leaves out the generated search column: its words, read with SQL.
            let inVector = { (word: String) in try Backend.count("SELECT COUNT(*) FROM messages WHERE search::text LIKE '%\(word)%'", on: server.databasePath) }
            #expect(try inVector(kept) == 1)
            for word in deleted + edited { #expect(try inVector(word) == 0, "\(word) is still in a search vector") }
        }
    }

    /// Whether `bytes` hold `word`, as text or as PostgreSQL's hex of a BYTEA (messages.text).
    func holds(_ bytes: Data, _ word: String) -> Bool {
        let hex = word.utf8.map { String(format: "%02x", $0) }.joined()
        return bytes.range(of: Data(word.utf8)) != nil || bytes.range(of: Data(hex.utf8)) != nil
    }

    // A database from before secure-delete holds the words of messages deleted then (FTS5
    // kept them beside a tombstone). The first start after the upgrade takes them out.
    @Test func wordsDeletedBeforeTheUpgradeAreGoneAfterIt() throws {
        guard Backend.postgres == nil else { return }
        var server = try TestServer(extraArguments: ["--search-index-idle-ms", "50"])
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let c = try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id
        let gone = "pangolin\(UUID().uuidString.prefix(8).lowercased())", kept = "ocelot\(UUID().uuidString.prefix(8).lowercased())"
        for text in [gone, kept] { try #require(try alice.run(["send", "\(c)", text]).code == 0) }
        try waitUntilIndexed(server)
        server.stop()
        // As the schema before: no secure-delete, and the delete made by that schema's trigger
        // (the sqlite3 shell's FTS5 adds a tombstone); the row's old bytes zeroed, as nexusd's
        // SQLite did then, so only the index holds the word.
        try Backend.undoSQLiteMigrations(after: 14, on: server.databasePath)
        try Backend.execute(
            """
            DELETE FROM messages_fts_config WHERE k = 'secure-delete'; DELETE FROM schema_migrations WHERE version >= 14;
            PRAGMA secure_delete = ON; UPDATE messages SET text = '', deleted_at = 1 WHERE text = '\(gone)';
            """, on: server.databasePath)
        #expect(try Backend.contents(of: server.databasePath).range(of: Data(gone.utf8)) != nil, "the old schema left no word to take out")

        server = try TestServer(directory: server.directory, port: server.port, database: server.databasePath)
        #expect(try refs(bob, kept) == ["\(c)/2"])
        server.stop()
        let stored = try Backend.contents(of: server.databasePath)
        #expect(stored.range(of: Data(kept.utf8)) != nil)
        #expect(stored.range(of: Data(gone.utf8)) == nil, "the upgrade left the words of a message deleted before it")
    }

    func refs(_ user: User, _ query: String) throws -> [String] {
        let r = try user.run(["search", "--json", query])
        guard r.code == 0 else { throw HarnessError("search \(query) exited \(r.code): \(r.err)") }
        return r.decodeLines(Hit.self).map(\.ref)
    }

    /// Until no message waits for SQLite's search index (SearchIndexLagTests), or 20 s.
    func waitUntilIndexed(_ server: TestServer) throws {
        let waiting = { try Backend.count("SELECT COUNT(*) FROM messages WHERE id > (SELECT up_to FROM search_indexed)", on: server.databasePath) }
        let deadline = Date().addingTimeInterval(20)
        while try waiting() > 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        try #require(try waiting() == 0, "the indexer left messages waiting")
    }
}
