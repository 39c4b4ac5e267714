import NexusWire
import PostgresNIO

struct PostgresConversationStore: ConversationStore {
    let db: PostgresDatabase

    func openDirect(_ a: Int64, _ b: Int64) async throws -> (id: Int64, created: Bool) {
        let key = ConversationRows.directKey(a, b)
        let now = Timestamp.now().milliseconds
        return try await db.transaction { [db] c in
            // Look first: INSERT … ON CONFLICT takes an id from the sequence even when it
            // inserts nothing, and a reused conversation must leave no gap in the ids people
            // see. Only two first opens of the same pair at once can still use one up.
            let found = try await c.query("SELECT id FROM conversations WHERE direct_key = \(key)", logger: db.logger).collect()
            if let id = try found.first?.decode(Int64.self) { return (id, false) }
            // A racing create of the same pair waits here for the other to commit, then inserts nothing.
            let inserted = try await c.query(
                """
                INSERT INTO conversations (kind, direct_key, created_at, updated_at) VALUES ('direct', \(key), \(now), \(now))
                ON CONFLICT (direct_key) DO NOTHING RETURNING id
                """, logger: db.logger
            ).collect()
            if let id = try inserted.first?.decode(Int64.self) {
                try await Self.start(id, members: Array(Set([a, b])), at: now, on: c, db: db)
                return (id, true)
            }
            let existing = try await c.query("SELECT id FROM conversations WHERE direct_key = \(key)", logger: db.logger).collect()
            guard let id = try existing.first?.decode(Int64.self) else { throw StoreError.inconsistent("direct \(key)") }
            return (id, false)
        }
    }

    func createGroup(creator: Int64, members: [Int64], name: String) async throws -> Int64 {
        let now = Timestamp.now().milliseconds
        return try await db.transaction { [db] c in
            let inserted = try await c.query(
                "INSERT INTO conversations (kind, name, created_at, updated_at) VALUES ('group', \(name), \(now), \(now)) RETURNING id",
                logger: db.logger
            ).collect()
            guard let id = try inserted.first?.decode(Int64.self) else { throw StoreError.inconsistent("group") }
            try await Self.start(id, members: [creator] + members, at: now, on: c, db: db)
            return id
        }
    }

    /// A new conversation's members, and its event in their feeds.
    private static func start(_ id: Int64, members: [Int64], at now: Int64, on c: PostgresConnection, db: PostgresDatabase) async throws {
        try await c.query(
            "INSERT INTO members (conversation_id, user_id, joined_at) SELECT \(id), u, \(now) FROM unnest(\(members)::bigint[]) AS u",
            logger: db.logger)
        try await db.appendEvents([(id, "conversation", id)], on: c)
    }

    func conversation(id: Int64, viewer: Int64) async throws -> Conversation? {
        let rows = try await db.rows(
            """
            SELECT \(unescaped: ConversationRows.columns) FROM conversations c
            JOIN members me ON me.conversation_id = c.id AND me.user_id = \(viewer)
            LEFT JOIN messages m ON m.id = c.last_message_id
            WHERE c.id = \(id)
            """)
        return try await ConversationRows.hydrate(rows) { ids in
            try await db.rows(
                """
                SELECT \(unescaped: ConversationRows.memberColumns) FROM members mb JOIN users u ON u.id = mb.user_id
                WHERE mb.conversation_id = ANY(\(ids)::bigint[]) ORDER BY mb.conversation_id, u.id
                """)
        }.first
    }

    /// Two queries whatever the count, as in SQLiteConversationStore.conversations.
    func conversations(viewer: Int64) async throws -> ConversationsResponse {
        let rows = try await db.rows(
            """
            SELECT \(unescaped: ConversationRows.columns),
                CASE WHEN m.sender_id = me.user_id THEN (SELECT COUNT(*) FROM members o WHERE o.conversation_id = c.id
                    AND o.user_id != me.user_id AND o.read_seq >= m.seq) END AS read_by,
                \(unescaped: ConversationRows.readers),
                (SELECT array_agg(mb.user_id ORDER BY mb.user_id) FROM members mb WHERE mb.conversation_id = c.id) AS member_ids
            FROM members me
            JOIN conversations c ON c.id = me.conversation_id
            LEFT JOIN messages m ON m.id = c.last_message_id
            WHERE me.user_id = \(viewer)
            ORDER BY c.updated_at DESC, c.id DESC
            """)
        var everyone = Set<Int64>()
        let summaries = try rows.map { row in
            let memberIds = try row["member_ids"].decode([Int64]?.self) ?? []
            everyone.formUnion(memberIds)
            return try ConversationRows.summary(row, memberIds: memberIds)
        }
        let users = try await db.rows(
            "SELECT id, email, display_name, last_seen_at, bot FROM users WHERE id = ANY(\(Array(everyone))::bigint[]) ORDER BY id"
        ).map(Rows.user)
        return ConversationsResponse(conversations: summaries, users: users)
    }

    func memberIds(conversationId: Int64) async throws -> [Int64] {
        try await db.rows(MemberIds(conversationId: conversationId)).map { try $0["user_id"].decode(Int64.self) }
    }

    func share(_ a: Int64, _ b: Int64) async throws -> Bool {
        try await !db.rows("\(unescaped: ConversationRows.shareSQL(a, b))").isEmpty
    }
}

/// One conversation's members, prepared once on each connection: most routes of a
/// conversation check them on replicas, and sent unnamed the statement was parsed,
/// analysed and planned each time.
private struct MemberIds: PostgresPreparedStatement {
    typealias Row = PostgresRandomAccessRow
    static let name = "MemberIds"  // not worked out at every execute (SendGroup.name)
    static let sql = "SELECT user_id FROM members WHERE conversation_id = $1"

    let conversationId: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(conversationId)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { row.makeRandomAccess() }
}
