import NexusWire
import PostgresNIO

struct PostgresFeedStore: FeedStore {
    let db: PostgresDatabase
    let conversations: PostgresConversationStore

    func events(viewer: Int64, after: Int64, conversationId: Int64?, limit: Int) async throws -> [SyncEvent] {
        let rows = try await db.rows(
            """
            SELECT \(unescaped: FeedRows.columns) FROM events e
            JOIN members me ON me.conversation_id = e.conversation_id AND me.user_id = \(viewer)
            \(unescaped: FeedRows.joins)
            WHERE e.id > \(after) AND (\(conversationId)::bigint IS NULL OR e.conversation_id = \(conversationId))
            ORDER BY e.id LIMIT \(Int64(limit))
            """)
        return try await FeedRows.events(rows) { try await conversations.conversation(id: $0, viewer: viewer) }
    }

    func eventToCheck(id: Int64, conversationId: Int64?) async throws -> SyncEvent? {
        let rows = try await db.rows(
            """
            SELECT \(unescaped: FeedRows.columns) FROM events e
            \(unescaped: FeedRows.joins)
            WHERE e.id = \(id) AND (\(conversationId)::bigint IS NULL OR e.conversation_id = \(conversationId))
            """)
        return try await FeedRows.events(rows) { conversation in
            try await db.rows("SELECT id, created_at FROM conversations WHERE id = \(conversation)").first.flatMap(FeedRows.checked)
        }.first
    }

    func lastMessageEvents(viewer: Int64, conversationId: Int64?, count: Int) async throws -> (events: [SyncEvent], head: Int64) {
        let head = try await db.rows(
            """
            SELECT COALESCE(MAX(e.id), 0) AS head FROM events e JOIN members me ON me.conversation_id = e.conversation_id
            WHERE me.user_id = \(viewer) AND (\(conversationId)::bigint IS NULL OR e.conversation_id = \(conversationId))
            """
        ).first?["head"].decode(Int64.self) ?? 0
        let rows = try await db.rows(
            """
            SELECT \(unescaped: FeedRows.columns) FROM events e
            JOIN members me ON me.conversation_id = e.conversation_id AND me.user_id = \(viewer)
            JOIN messages m ON m.id = e.ref_id
            LEFT JOIN receipts r ON false
            LEFT JOIN message_changes x ON false
            WHERE e.type = 'message' AND (\(conversationId)::bigint IS NULL OR e.conversation_id = \(conversationId)) AND e.id <= \(head)
            ORDER BY e.id DESC LIMIT \(Int64(count))
            """)
        return (try await FeedRows.events(rows.reversed()) { try await conversations.conversation(id: $0, viewer: viewer) }, head)
    }
}
