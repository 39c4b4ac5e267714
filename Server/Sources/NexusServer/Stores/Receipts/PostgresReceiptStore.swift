import NexusWire
import PostgresNIO

struct PostgresReceiptStore: ReceiptStore {
    let db: PostgresDatabase

    func advanceReceipts(conversationId: Int64, userId: Int64, delivered: Int64?, read: Int64?) async throws -> [Receipt] {
        let now = Timestamp.now()
        return try await db.transaction { [db] c in
            let current = try await c.query(
                """
                SELECT mb.delivered_seq, mb.read_seq, c.last_seq FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                WHERE mb.conversation_id = \(conversationId) AND mb.user_id = \(userId) FOR UPDATE OF mb
                """, logger: db.logger
            ).collect().first?.makeRandomAccess()
            guard let current else { return [] }
            let marks = try AdvancedMarks(row: current, asked: (delivered, read), userId: userId, at: now)
            guard !marks.moved.isEmpty else { return [] }
            try await c.query(
                """
                UPDATE members SET delivered_seq = \(marks.delivered), read_seq = \(marks.read)
                WHERE conversation_id = \(conversationId) AND user_id = \(userId)
                """, logger: db.logger)
            var events: [(conversationId: Int64, type: String, refId: Int64)] = []
            for r in marks.moved {
                let id = try await c.query(
                    """
                    INSERT INTO receipts (conversation_id, user_id, kind, seq, at)
                    VALUES (\(conversationId), \(userId), \(r.kind.rawValue), \(r.seq), \(now.milliseconds)) RETURNING id
                    """, logger: db.logger
                ).collect().first?.decode(Int64.self) ?? 0
                events.append((conversationId, "receipt", id))
            }
            try await db.appendEvents(events, on: c)
            return marks.moved
        }
    }

    func status(of message: Message) async throws -> [MessageStatus.Member] {
        try await db.rows(
            """
            SELECT u.id, u.email, u.display_name, u.last_seen_at, u.bot,
                (SELECT MIN(r.at) FROM receipts r WHERE r.conversation_id = mb.conversation_id AND r.user_id = mb.user_id
                    AND r.kind = 'delivered' AND r.seq >= \(message.seq)) AS delivered_at,
                (SELECT MIN(r.at) FROM receipts r WHERE r.conversation_id = mb.conversation_id AND r.user_id = mb.user_id
                    AND r.kind = 'read' AND r.seq >= \(message.seq)) AS read_at
            FROM members mb JOIN users u ON u.id = mb.user_id
            WHERE mb.conversation_id = \(message.conversationId) AND mb.user_id != \(message.senderId) AND \(unescaped: ConversationRows.notHookBot)
            ORDER BY u.id
            """
        ).map(ReceiptRows.member)
    }
}
