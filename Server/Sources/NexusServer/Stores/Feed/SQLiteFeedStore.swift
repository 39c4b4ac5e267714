import NexusWire
import SQLiteNIO

struct SQLiteFeedStore: FeedStore {
    let db: SQLiteDatabase
    let conversations: SQLiteConversationStore

    func events(viewer: Int64, after: Int64, conversationId: Int64?, limit: Int) async throws -> [SyncEvent] {
        var sql = """
            SELECT \(FeedRows.columns) FROM events e
            JOIN members me ON me.conversation_id = e.conversation_id AND me.user_id = (SELECT ?)
            \(FeedRows.joins)
            WHERE e.id > ?
            """
        var binds = [viewer, after]
        if let conversationId {
            sql += " AND e.conversation_id = (SELECT ?)"
            binds.append(conversationId)
        }
        // SQLite re-prepares a kept statement (readKept) every time it binds anew a LIMIT
        // parameter, or a parameter that a column must equal (its constant propagation): so
        // the limit is written in, and the others are `(SELECT ?)`, which gives the same
        // plan. So does eventToCheck.
        sql += " ORDER BY e.id LIMIT \(limit)"
        return try await FeedRows.events(db.readKept(sql, binds)) { try await conversations.conversation(id: $0, viewer: viewer) }
    }

    func eventToCheck(id: Int64, conversationId: Int64?) async throws -> SyncEvent? {
        var sql = """
            SELECT \(FeedRows.columns) FROM events e
            \(FeedRows.joins)
            WHERE e.id = (SELECT ?)
            """
        var binds = [id]
        if let conversationId {
            sql += " AND e.conversation_id = (SELECT ?)"
            binds.append(conversationId)
        }
        return try await FeedRows.events(db.readKept(sql, binds)) { conversation in
            try await db.read("SELECT id, created_at FROM conversations WHERE id = ?", [.integer(Int(conversation))]).first.flatMap(FeedRows.checked)
        }.first
    }

    func lastMessageEvents(viewer: Int64, conversationId: Int64?, count: Int) async throws -> (events: [SyncEvent], head: Int64) {
        var filter = ""
        var binds: [SQLiteData] = [.integer(Int(viewer))]
        if let conversationId {
            filter = " AND e.conversation_id = ?"
            binds.append(.integer(Int(conversationId)))
        }
        let head = try await db.read(
            "SELECT COALESCE(MAX(e.id), 0) AS head FROM events e JOIN members me ON me.conversation_id = e.conversation_id AND me.user_id = ? WHERE 1\(filter)",
            binds
        ).first?.int("head") ?? 0
        let rows = try await db.read(
            """
            SELECT \(FeedRows.columns) FROM events e
            JOIN members me ON me.conversation_id = e.conversation_id AND me.user_id = ?
            JOIN messages m ON m.id = e.ref_id
            LEFT JOIN receipts r ON 0
            LEFT JOIN message_changes x ON 0
            WHERE e.type = 'message'\(filter) AND e.id <= ?
            ORDER BY e.id DESC LIMIT ?
            """, binds + [.integer(Int(head)), .integer(count)])
        return (try await FeedRows.events(rows.reversed()) { try await conversations.conversation(id: $0, viewer: viewer) }, head)
    }
}
