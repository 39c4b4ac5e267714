import NIOCore
import NexusCore
import PostgresNIO

/// Search on PostgreSQL: the generated column `messages.search` (a tsvector with the
/// language-neutral `simple` configuration over the unaccented text; see PostgresSchema)
/// and its GIN index. Being generated, the column follows every UPDATE of the text.
struct PostgresSearchStore: SearchStore {
    let db: PostgresDatabase

    func matches(_ scope: SearchScope) async throws -> [Message] {
        var binds = PostgresBindings()
        var count = 0
        func next() -> String {
            count += 1
            return "$\(count)"
        }
        binds.append(scope.viewer)
        let viewer = next()
        var conditions: [String] = []
        if let tsquery = Self.tsquery(scope.query) {
            binds.append(tsquery)
            conditions.append("m.search @@ to_tsquery('simple', unaccent('unaccent', \(next())))")
        }
        let rest = SearchConditions.make(
            scope,
            bind: { value in
                switch value {
                case .int(let i): binds.append(i)
                case .text(let t): binds.append(t)
                }
                return next()
            },
            substring: { raw, present in
                binds.append(ByteBuffer(string: raw))
                return "position(\(next())::bytea IN m.text) " + (present ? "> 0" : "= 0")
            })
        binds.append(Int64(scope.limit))
        let sql = """
            SELECT \(messageColumns) FROM messages m
            JOIN members me ON me.conversation_id = m.conversation_id AND me.user_id = \(viewer)
            WHERE \((conditions + rest.sql).joined(separator: " AND "))
            ORDER BY m.id DESC LIMIT \(next())
            """
        let query = PostgresQuery(unsafeSQL: sql, binds: binds)
        // The planner prices testing a row's tsvector at one operator; it is far more. With
        // the default, a word in ~0.4 % of a million messages walked the primary key backwards
        // testing ~12,500 rows (55-89 ms); ten times the price takes the GIN bitmap (31-39 ms)
        // and leaves the backward walk to words common enough to fill the page at once (a word
        // in half the messages: 0.25 ms either way). Forcing the bitmap instead cost that word
        // 344-422 ms. See docs/benchmarks.md.
        return try await db.transaction { [logger = db.logger] c in
            try await c.query("SET LOCAL cpu_operator_cost = 0.025", logger: logger)
            return try await c.query(query, logger: logger).collect().map { try Rows.message($0.makeRandomAccess()) }
        }
    }

    /// The generated column is written with the row: nothing waits.
    func indexPending(limit: Int) async throws -> (indexed: Int, left: Int) { (0, 0) }

    /// The tsquery text of the query's word terms: `'a' <-> 'b'` for a phrase, `:*` for a
    /// prefix, `!` for an excluded term. Tokens are letters, digits and marks only, so the
    /// quotes need no escaping; unaccent and to_tsquery fold them as the column was folded.
    static func tsquery(_ query: SearchQuery) -> String? {
        let parts = query.terms.filter { $0.substring == nil }.map { t -> String in
            let phrase = t.words.enumerated().map { i, w in
                "'\(w)'" + (t.prefix && i == t.words.count - 1 ? ":*" : "")
            }.joined(separator: " <-> ")
            return (t.excluded ? "!" : "") + "(" + phrase + ")"
        }
        return parts.isEmpty ? nil : parts.joined(separator: " & ")
    }
}
