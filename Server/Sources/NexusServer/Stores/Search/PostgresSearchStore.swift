import NIOCore
import NexusWire
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
            binds.append(try await normalized(tsquery))
            conditions.append("m.search @@ \(next())::tsquery")
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
        return try await db.rows(PostgresQuery(unsafeSQL: sql, binds: binds)).map { try Rows.message($0) }
    }

    /// The query's tsquery, unaccented and folded by PostgreSQL as the column was, as text.
    /// Why a query of its own: written inline, `to_tsquery(unaccent(...))` is a stable
    /// expression that a walk along the primary key evaluates again for every row it tests
    /// (a word in 0.4 % of a million messages: 80-112 ms), and as a subquery its value is
    /// unknown to the planner, which then walks for rare pairs too (600-990 ms). Bound as a
    /// plain tsquery value, the planner sees it and each row costs one `@@` (2-4 ms; pairs
    /// and phrases 0.3-0.5 ms through the GIN index). docs/benchmarks.md.
    private func normalized(_ tsquery: String) async throws -> String {
        let rows = try await db.rows("SELECT to_tsquery('simple', unaccent('unaccent', \(tsquery)))::text")
        return try rows.first.map { try $0[0].decode(String.self) } ?? ""
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
