import NexusWire
import SQLiteNIO

struct SQLiteConversationStore: ConversationStore {
    let db: SQLiteDatabase

    func openDirect(_ a: Int64, _ b: Int64) async throws -> (id: Int64, created: Bool) {
        let key = ConversationRows.directKey(a, b)
        let now = Int(Timestamp.now().milliseconds)
        return try await db.writer.perform(multiStatement: true) { db in
            // Look first: an insert that meets the conflict may still use up an id, and a
            // reused conversation must leave no gap in the ids people see.
            let found = try await db.query("SELECT id FROM conversations WHERE direct_key = ?", [.text(key)])
            if let id = found.first?.column("id")?.integer { return (Int64(id), false) }
            let inserted = try await db.query(
                """
                INSERT INTO conversations (kind, direct_key, created_at, updated_at) VALUES ('direct', ?, ?, ?)
                ON CONFLICT (direct_key) DO NOTHING RETURNING id
                """, [.text(key), .integer(now), .integer(now)])
            if let id = inserted.first?.column("id")?.integer {
                try await Self.start(Int64(id), members: Array(Set([a, b])), at: now, on: db)
                return (Int64(id), true)
            }
            let existing = try await db.query("SELECT id FROM conversations WHERE direct_key = ?", [.text(key)])
            guard let id = existing.first?.column("id")?.integer else { throw StoreError.inconsistent("direct \(key)") }
            return (Int64(id), false)
        }
    }

    func createGroup(creator: Int64, members: [Int64], name: String) async throws -> Int64 {
        let now = Int(Timestamp.now().milliseconds)
        return try await db.writer.perform(multiStatement: true) { db in
            let inserted = try await db.query(
                "INSERT INTO conversations (kind, name, created_at, updated_at) VALUES ('group', ?, ?, ?) RETURNING id",
                [.text(name), .integer(now), .integer(now)])
            guard let id = inserted.first?.column("id")?.integer else { throw StoreError.inconsistent("group") }
            try await Self.start(Int64(id), members: [creator] + members, at: now, on: db)
            return Int64(id)
        }
    }

    /// A new conversation's members, and its event in their feeds.
    private static func start(_ id: Int64, members: [Int64], at now: Int, on db: SQLiteConnection) async throws {
        for member in members {
            _ = try await db.query(
                "INSERT INTO members (conversation_id, user_id, joined_at) VALUES (?, ?, ?)",
                [.integer(Int(id)), .integer(Int(member)), .integer(now)])
        }
        _ = try await db.query(
            "INSERT INTO events (conversation_id, type, ref_id) VALUES (?, 'conversation', ?)", [.integer(Int(id)), .integer(Int(id))])
    }

    func conversation(id: Int64, viewer: Int64) async throws -> Conversation? {
        let rows = try await db.read(
            """
            SELECT \(ConversationRows.columns) FROM conversations c
            JOIN members me ON me.conversation_id = c.id AND me.user_id = ?
            LEFT JOIN messages m ON m.id = c.last_message_id
            WHERE c.id = ?
            """, [.integer(Int(viewer)), .integer(Int(id))])
        return try await ConversationRows.hydrate(rows) { ids in
            var rows: [SQLiteRow] = []
            // Chunked to stay under SQLite's limit on bound parameters.
            for chunk in ids.chunked(by: 500) {
                rows += try await db.read(
                    """
                    SELECT \(ConversationRows.memberColumns) FROM members mb JOIN users u ON u.id = mb.user_id
                    WHERE mb.conversation_id IN (\(Self.placeholders(chunk.count))) ORDER BY mb.conversation_id, u.id
                    """, chunk.map { .integer(Int($0)) })
            }
            return rows
        }.first
    }

    /// Two queries whatever the count (the conversations with their member ids, then those
    /// members once each), so a person in thousands of conversations gets a quick answer.
    func conversations(viewer: Int64) async throws -> ConversationsResponse {
        let rows = try await db.read(
            """
            SELECT \(ConversationRows.columns),
                CASE WHEN m.sender_id = me.user_id THEN (SELECT COUNT(*) FROM members o WHERE o.conversation_id = c.id
                    AND o.user_id != me.user_id AND o.read_seq >= m.seq) END AS read_by,
                \(ConversationRows.readers),
                (SELECT GROUP_CONCAT(mb.user_id) FROM members mb WHERE mb.conversation_id = c.id) AS member_ids
            FROM members me
            JOIN conversations c ON c.id = me.conversation_id
            LEFT JOIN messages m ON m.id = c.last_message_id
            WHERE me.user_id = ?
            ORDER BY c.updated_at DESC, c.id DESC
            """, [.integer(Int(viewer))])
        var everyone = Set<Int64>()
        let summaries = try rows.map { row in
            let memberIds = (row.column("member_ids")?.string ?? "").split(separator: ",").compactMap { Int64($0) }.sorted()
            everyone.formUnion(memberIds)
            return try ConversationRows.summary(row, memberIds: memberIds)
        }
        var users: [User] = []
        for chunk in Array(everyone).sorted().chunked(by: 500) {
            users += try await db.read(
                "SELECT id, email, display_name, last_seen_at, bot FROM users WHERE id IN (\(Self.placeholders(chunk.count)))",
                chunk.map { .integer(Int($0)) }
            ).map(Rows.user)
        }
        return ConversationsResponse(conversations: summaries, users: users.sorted { $0.id < $1.id })
    }

    /// Through the database's read connections when it has them (not in memory).
    func conversationListJSON(viewer: Int64, allowed: Set<Int64>?, present: @escaping @Sendable (User) -> User) async throws -> [UInt8] {
        try await conversationListJSON(viewer: viewer, allowed: allowed, present: present, halvesFrom: SQLiteConversationList.halvesFrom)
    }

    /// `halvesFrom`: tests read short lists in halves too.
    func conversationListJSON(
        viewer: Int64, allowed: Set<Int64>?, present: @escaping @Sendable (User) -> User, halvesFrom: Int
    ) async throws -> [UInt8] {
        guard let reader = db.listReader, let helper = db.listHelper else {
            return try await listJSONFromModels(viewer: viewer, allowed: allowed, present: present)
        }
        do {
            return try await reader.run { [writerThread = db.writerThread] in
                try SQLiteConversationList.json(
                    viewer: viewer, allowed: allowed, present: present, on: $0, helper: helper, writerThread: writerThread, halvesFrom: halvesFrom)
            }
        } catch {
            throw SQLiteDatabase.surfaced(error)
        }
    }

    func memberIds(conversationId: Int64) async throws -> [Int64] {
        try await db.read("SELECT user_id FROM members WHERE conversation_id = ?", [.integer(Int(conversationId))])
            .compactMap { $0.int("user_id") }
    }

    func share(_ a: Int64, _ b: Int64) async throws -> Bool {
        try await !db.read(ConversationRows.shareSQL(a, b)).isEmpty
    }

    static func placeholders(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ",") }
}
