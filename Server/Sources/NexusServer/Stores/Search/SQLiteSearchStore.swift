import NexusWire
import SQLiteNIO

/// Search on SQLite: the FTS5 table `messages_fts` (see SQLiteSchema), an external-content
/// index of messages.text, with the unicode61 tokenizer removing diacritics. Messages after
/// the id `search_indexed.up_to` wait until SearchIndexService indexes them (moments later,
/// in large transactions); a search reads the index and, in the same statement, the
/// waiting messages, which SearchMatch tests here as offline search does.
struct SQLiteSearchStore: SearchStore {
    let db: SQLiteDatabase

    func matches(_ scope: SearchScope) async throws -> [Message] {
        var binds: [SQLiteData] = [.integer(Int(scope.viewer))]
        let expression = Self.expression(scope.query)
        var from = "messages m"
        var order = "m.id"
        var conditions: [String] = []
        if expression.positive != nil {
            // The index drives, in its rowid order, so the newest page stops early.
            from = "messages_fts f JOIN messages m ON m.id = f.rowid"
            order = "f.rowid"
            conditions.append("messages_fts MATCH ?")
        }
        let rest = SearchConditions.make(
            scope,
            bind: { value in
                switch value {
                case .int(let i): binds.append(.integer(Int(i)))
                case .text(let t): binds.append(.text(t))
                }
                return "?"
            },
            substring: { raw, present in
                binds.append(.text(raw))
                return present ? "instr(m.text, ?) > 0" : "instr(m.text, ?) = 0"
            })
        var matchBinds: [SQLiteData] = []
        if let positive = expression.positive { matchBinds.append(.text(positive)) }
        if expression.positive == nil {
            // Without the index driving, the waiting messages would come twice, and untested
            // against the excluded words: the second part of the statement takes them.
            conditions.append("m.id <= (SELECT up_to FROM search_indexed)")
        }
        if let onlyExcluded = expression.excludedAlone {
            conditions.append("m.id NOT IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?)")
            matchBinds.append(.text(onlyExcluded))
        }
        if let id = scope.beforeId, expression.positive != nil {
            conditions.append("f.rowid < ?")
            matchBinds.append(.integer(Int(id)))
        }
        // One statement, so one snapshot: a message is either indexed or waiting, never
        // both or neither. The waiting ones come unfiltered by words, marked `waiting`. Their
        // part reads `messages` from the mark on (CROSS JOIN keeps it the outer loop): left to
        // itself, SQLite went from the viewer's memberships through every message of each
        // conversation, 41 ms in the bench's conversation of 1,000,000.
        let restSQL = rest.sql.isEmpty ? "" : " AND " + rest.sql.joined(separator: " AND ")
        let sql = """
            SELECT * FROM (
                SELECT \(messageColumns), 0 AS waiting FROM \(from)
                JOIN members me ON me.conversation_id = m.conversation_id AND me.user_id = ?
                WHERE \((conditions + rest.sql).joined(separator: " AND "))
                ORDER BY \(order) DESC LIMIT ?)
            UNION ALL
            SELECT \(messageColumns), 1 AS waiting FROM messages m
            CROSS JOIN members me ON me.conversation_id = m.conversation_id AND me.user_id = ?
            WHERE m.id > (SELECT up_to FROM search_indexed)\(restSQL)
            """
        // Binds follow the placeholders' order: viewer, MATCH ones, the rest, the limit; then
        // the waiting part's viewer and rest.
        let all = [binds[0]] + matchBinds + binds.dropFirst() + [.integer(scope.limit)] + [binds[0]] + binds.dropFirst()
        var found: [Message] = []
        for row in try await db.read(sql, all) {
            let message = try Rows.message(row)
            if row.column("waiting")?.integer == 1 {
                guard message.deletedAt == nil, SearchMatch(scope.query, text: message.text).matches else { continue }
            }
            found.append(message)
        }
        found.sort { $0.id > $1.id }
        return Array(found.prefix(scope.limit))
    }

    func indexPending(limit: Int) async throws -> (indexed: Int, left: Int) {
        // Asked on a reader first, so an idle server's polls never touch the writer.
        guard try await db.read("SELECT EXISTS (\(Self.waiting)) AS w").first?.column("w")?.integer == 1 else { return (0, 0) }
        let indexed = try await db.writer.perform(multiStatement: true) { c -> Int in
            // The batch is the next `limit` messages after the mark, named by its last id.
            guard let batch = try await c.query(
                "SELECT MAX(id) AS last, COUNT(*) AS n FROM (\(Self.waiting) ORDER BY id LIMIT ?)", [.integer(limit)]
            ).first, let last = batch.column("last")?.integer else { return 0 }
            _ = try await c.query(
                "INSERT INTO messages_fts(rowid, text) SELECT id, text FROM messages WHERE id > (SELECT up_to FROM search_indexed) AND id <= ?",
                [.integer(last)])
            _ = try await c.query("UPDATE search_indexed SET up_to = ?", [.integer(last)])
            return batch.column("n")?.integer ?? 0
        }
        let left = try await db.read("SELECT COUNT(*) AS n FROM (\(Self.waiting))").first?.column("n")?.integer ?? 0
        return (indexed, left)
    }

    /// The messages waiting for the index.
    private static let waiting = "SELECT id FROM messages WHERE id > (SELECT up_to FROM search_indexed)"

    /// The FTS5 expression of the query's word terms: each a quoted phrase of its tokens
    /// (FTS5 folds them as it folded the text), `*` for a prefix, the excluded ones after
    /// NOT. Without a required word term, the excluded ones come alone, OR-ed, for a
    /// NOT IN.
    static func expression(_ query: SearchQuery) -> (positive: String?, excludedAlone: String?) {
        func phrase(_ t: SearchQuery.Term) -> String {
            // Tokens are letters, digits and marks only: nothing in them needs escaping.
            "\"" + t.words.joined(separator: " ") + "\"" + (t.prefix ? " *" : "")
        }
        let required = query.terms.filter { !$0.excluded && $0.substring == nil }.map(phrase)
        let excluded = query.terms.filter { $0.excluded && $0.substring == nil }.map(phrase)
        guard !required.isEmpty else { return (nil, excluded.isEmpty ? nil : excluded.joined(separator: " OR ")) }
        var positive = "(" + required.joined(separator: " AND ") + ")"
        for e in excluded { positive += " NOT " + e }
        return (positive, nil)
    }
}
