import NexusCore
import SQLiteNIO

/// Search on SQLite: the FTS5 table `messages_fts` (see SQLiteSchema), an external-content
/// index of messages.text kept by triggers on insert, update and delete, with the
/// unicode61 tokenizer removing diacritics.
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
        if let onlyExcluded = expression.excludedAlone {
            conditions.append("m.id NOT IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?)")
            matchBinds.append(.text(onlyExcluded))
        }
        if let id = scope.beforeId, expression.positive != nil {
            conditions.append("f.rowid < ?")
            matchBinds.append(.integer(Int(id)))
        }
        let sql = """
            SELECT \(messageColumns) FROM \(from)
            JOIN members me ON me.conversation_id = m.conversation_id AND me.user_id = ?
            WHERE \((conditions + rest.sql).joined(separator: " AND "))
            ORDER BY \(order) DESC LIMIT ?
            """
        // Binds follow the placeholders' order: viewer, MATCH ones, then the rest.
        let all = [binds[0]] + matchBinds + binds.dropFirst() + [.integer(scope.limit)]
        return try await db.read(sql, all).map { try Rows.message($0) }
    }

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
