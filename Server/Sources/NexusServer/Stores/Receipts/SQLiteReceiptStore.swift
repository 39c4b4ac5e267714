import NexusWire
import SQLiteNIO

struct SQLiteReceiptStore: ReceiptStore {
    let db: SQLiteDatabase

    func advanceReceipts(conversationId: Int64, userId: Int64, delivered: Int64?, read: Int64?) async throws -> [Receipt] {
        let now = Timestamp.now()
        return try await db.writer.perform(multiStatement: true) { db in
            let rows = try await db.query(
                """
                SELECT mb.delivered_seq, mb.read_seq, c.last_seq FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                WHERE mb.conversation_id = ? AND mb.user_id = ?
                """, [.integer(Int(conversationId)), .integer(Int(userId))])
            guard let row = rows.first else { return [] }
            let marks = try AdvancedMarks(row: row, asked: (delivered, read), userId: userId, at: now)
            guard !marks.moved.isEmpty else { return [] }
            _ = try await db.query(
                "UPDATE members SET delivered_seq = ?, read_seq = ? WHERE conversation_id = ? AND user_id = ?",
                [.integer(Int(marks.delivered)), .integer(Int(marks.read)), .integer(Int(conversationId)), .integer(Int(userId))])
            for r in marks.moved {
                let inserted = try await db.query(
                    "INSERT INTO receipts (conversation_id, user_id, kind, seq, at) VALUES (?, ?, ?, ?, ?) RETURNING id",
                    [.integer(Int(conversationId)), .integer(Int(userId)), .text(r.kind.rawValue), .integer(Int(r.seq)),
                     .integer(Int(now.milliseconds))])
                _ = try await db.query(
                    "INSERT INTO events (conversation_id, type, ref_id) VALUES (?, 'receipt', ?)",
                    [.integer(Int(conversationId)), .integer(inserted.first?.column("id")?.integer ?? 0)])
            }
            return marks.moved
        }
    }

    func status(of message: Message) async throws -> [MessageStatus.Member] {
        try await db.read(
            """
            SELECT u.id, u.email, u.display_name, u.last_seen_at, u.bot,
                (SELECT MIN(r.at) FROM receipts r WHERE r.conversation_id = mb.conversation_id AND r.user_id = mb.user_id
                    AND r.kind = 'delivered' AND r.seq >= ?) AS delivered_at,
                (SELECT MIN(r.at) FROM receipts r WHERE r.conversation_id = mb.conversation_id AND r.user_id = mb.user_id
                    AND r.kind = 'read' AND r.seq >= ?) AS read_at
            FROM members mb JOIN users u ON u.id = mb.user_id
            WHERE mb.conversation_id = ? AND mb.user_id != ? AND \(ConversationRows.notHookBot) ORDER BY u.id
            """,
            [.integer(Int(message.seq)), .integer(Int(message.seq)), .integer(Int(message.conversationId)), .integer(Int(message.senderId))]
        ).map(ReceiptRows.member)
    }
}
