import NIOCore
import NexusWire
import PostgresNIO

struct PostgresMessageStore: MessageStore {
    let db: PostgresDatabase
    /// Gathers concurrent single sends into one statement (PostgresSendBatcher,
    /// PostgresSendStatement.swift).
    private let batcher: PostgresSendBatcher

    init(db: PostgresDatabase) {
        self.db = db
        self.batcher = PostgresSendBatcher { [db] messages in try await Self.storeInOneStatement(messages, db: db, genericPlan: true) }
    }

    func send(_ messages: [NewMessage]) async throws -> [SendOutcome] {
        guard messages.count == 1 else { return try await Self.storeInOneStatement(messages, db: db) }
        return [try await batcher.send(messages[0])]
    }

    func seq(ofMessage id: Int64, conversationId: Int64) async throws -> Int64? {
        try await db.rows("SELECT seq FROM messages WHERE id = \(id) AND conversation_id = \(conversationId)").first?["seq"].decode(Int64.self)
    }

    func firstSeq(sentAtOrAfter time: Timestamp, conversationId: Int64) async throws -> Int64 {
        let last = try await db.rows("SELECT last_seq FROM conversations WHERE id = \(conversationId)").first?["last_seq"].decode(Int64.self) ?? 0
        return try await firstSeqBySearch(sentAtOrAfter: time, lastSeq: last) { seq in
            try await db.rows("SELECT sent_at FROM messages WHERE conversation_id = \(conversationId) AND seq = \(seq)")
                .first?["sent_at"].decode(Int64.self) ?? 0
        }
    }

    func messages(conversationId: Int64, before: Int64?, limit: Int) async throws -> MessagesPage {
        let rows = try await db.rows(
            """
            SELECT \(unescaped: messageColumns) FROM messages m
            WHERE m.conversation_id = \(conversationId) AND m.seq < \(before ?? Int64.max) ORDER BY m.seq DESC LIMIT \(Int64(limit + 1))
            """)
        return MessagesPage(messages: try rows.prefix(limit).reversed().map { try Rows.message($0) }, hasMore: rows.count > limit)
    }

    func message(id: Int64, viewer: Int64) async throws -> Message? {
        try await db.rows(
            """
            SELECT \(unescaped: messageColumns) FROM messages m
            JOIN members me ON me.conversation_id = m.conversation_id AND me.user_id = \(viewer) WHERE m.id = \(id)
            """
        ).first.map { try Rows.message($0) }
    }

    func message(localId: String, sender: Int64) async throws -> Message? {
        try await db.rows("SELECT \(unescaped: messageColumns) FROM messages m WHERE m.sender_id = \(sender) AND m.local_id = \(localId)")
            .first.map { try Rows.message($0) }
    }
}
