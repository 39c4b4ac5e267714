import NexusWire
import SQLiteNIO

struct SQLiteMessageStore: MessageStore {
    let db: SQLiteDatabase

    /// Sends go through the writer's group commit, which writes each group with `inserts`.
    func send(_ messages: [NewMessage]) async throws -> [SendOutcome] {
        try await db.writer.send(messages)
    }

    /// How the writer writes a group of sends (SQLiteDatabase hands it over).
    static let inserts = GroupInsert(
        perStatement: rowsPerStatement, onConnection: { try await insert($0, on: $1) }, onDirect: { try insert($0, on: $1) })

    private static let columns = "id, conversation_id, seq, sender_id, local_id, text, sent_at, reply_to, edited_at, deleted_at, reactions, attachments, membership"

    /// Inserts a group of messages with one statement for each 500, so the group costs
    /// a few trips to SQLite and one fsync. The statement skips (sender, localId) pairs
    /// already stored, and messages whose sender is not a member (`.notMember`, resent
    /// or not), and numbers the rest after each conversation's last seq, so a resend
    /// never takes a seq and seqs have no gaps. The window function makes SQLite compute
    /// every row before it inserts any, so all numbers start from the seqs as they were.
    /// Sent times never go back within a conversation, as on PostgreSQL, even when the
    /// clock does. The trigger `message_inserted` writes the feed's events and the
    /// conversations' heads in the same statement. Outcomes come back in input order.
    /// Messages one INSERT takes (7 binds each, under SQLite's 32,766).
    static let rowsPerStatement = 500

    @Sendable static func insert(_ messages: [NewMessage], on connection: SQLiteConnection) async throws -> [SendOutcome] {
        let plan = InsertPlan(messages)
        var stored: [MessageKey: SendOutcome] = [:]
        for (sql, binds) in plan.inserts {
            for row in try await connection.query(sql, binds) { plan.created(try Rows.message(row), into: &stored) }
        }
        for (sql, binds) in plan.resends(stored) {
            for row in try await connection.query(sql, binds) { plan.resent(try Rows.message(row), into: &stored) }
        }
        return plan.batch.outcomes(stored)
    }

    /// The same on the writer's direct connection (SQLiteDirect), with its statements kept:
    /// a group of n single sends uses the same INSERT text every time it has n messages.
    static func insert(_ messages: [NewMessage], on connection: SQLiteDirect) throws -> [SendOutcome] {
        let plan = InsertPlan(messages)
        var stored: [MessageKey: SendOutcome] = [:]
        for (sql, binds) in plan.inserts {
            for row in try connection.query(sql, binds) { plan.created(try Rows.message(row), into: &stored) }
        }
        for (sql, binds) in plan.resends(stored) {
            for row in try connection.query(sql, binds) { plan.resent(try Rows.message(row), into: &stored) }
        }
        return plan.batch.outcomes(stored)
    }

    /// The statements of `insert`, for either connection.
    struct InsertPlan {
        let batch: SendBatch
        let sentAt = Int(Timestamp.now().milliseconds)

        init(_ messages: [NewMessage]) { batch = SendBatch(messages) }

        var inserts: [(String, [SQLiteData])] {
            batch.fresh.chunked(by: rowsPerStatement).map { chunk in
                (
                    """
                    INSERT INTO messages (conversation_id, seq, sender_id, local_id, text, sent_at, reply_to, attachments)
                    SELECT v.column1, c.last_seq + ROW_NUMBER() OVER (PARTITION BY v.column1 ORDER BY v.column5),
                           v.column2, v.column3, v.column4, MAX(?, c.updated_at), v.column6, v.column7
                    FROM (VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", "))) AS v
                    JOIN conversations c ON c.id = v.column1
                    JOIN members mb ON mb.conversation_id = v.column1 AND mb.user_id = v.column2
                    WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.sender_id = v.column2 AND m.local_id = v.column3)
                    ORDER BY v.column5
                    RETURNING \(columns)
                    """,
                    [.integer(sentAt)] + chunk.flatMap { index, m -> [SQLiteData] in
                        [
                            .integer(Int(m.conversationId)), .integer(Int(m.senderId)), .text(m.localId), .text(m.text), .integer(index),
                            m.replyTo.map { .integer(Int($0)) } ?? .null,
                            AttachmentColumn.encode(m.attachments).map(SQLiteData.text) ?? .null,
                        ]
                    }
                )
            }
        }

        /// Whatever did not go in was stored before, or its sender is not a member: the
        /// queries for the originals of members' resends.
        func resends(_ stored: [MessageKey: SendOutcome]) -> [(String, [SQLiteData])] {
            let resent = batch.fresh.map(\.message).filter { stored[MessageKey($0)] == nil }
            return resent.chunked(by: 400).map { chunk in
                (
                    "SELECT \(messageColumns) FROM (VALUES " + Array(repeating: "(?, ?, ?)", count: chunk.count).joined(separator: ", ")
                        + ") AS v JOIN members mb ON mb.conversation_id = v.column1 AND mb.user_id = v.column2"
                        + " JOIN messages m ON m.sender_id = v.column2 AND m.local_id = v.column3",
                    chunk.flatMap { [.integer(Int($0.conversationId)), .integer(Int($0.senderId)), .text($0.localId)] }
                )
            }
        }

        func created(_ m: Message, into stored: inout [MessageKey: SendOutcome]) { stored[MessageKey(m)] = .created(m) }
        func resent(_ m: Message, into stored: inout [MessageKey: SendOutcome]) { stored[MessageKey(m)] = .duplicate(m) }
    }

    func seq(ofMessage id: Int64, conversationId: Int64) async throws -> Int64? {
        try await db.read("SELECT seq FROM messages WHERE id = ? AND conversation_id = ?", [.integer(Int(id)), .integer(Int(conversationId))])
            .first?.int("seq")
    }

    func firstSeq(sentAtOrAfter time: Timestamp, conversationId: Int64) async throws -> Int64 {
        let last = try await db.read("SELECT last_seq FROM conversations WHERE id = ?", [.integer(Int(conversationId))])
            .first?.int("last_seq") ?? 0
        return try await firstSeqBySearch(sentAtOrAfter: time, lastSeq: last) { seq in
            try await db.read(
                "SELECT sent_at FROM messages WHERE conversation_id = ? AND seq = ?", [.integer(Int(conversationId)), .integer(Int(seq))]
            ).first?.int("sent_at") ?? 0
        }
    }

    func messages(conversationId: Int64, before: Int64?, limit: Int) async throws -> MessagesPage {
        let rows = try await db.read(
            """
            SELECT \(messageColumns) FROM messages m
            WHERE m.conversation_id = ? AND m.seq < ? ORDER BY m.seq DESC LIMIT ?
            """, [.integer(Int(conversationId)), .integer(Int(before ?? Int64.max)), .integer(limit + 1)])
        return MessagesPage(messages: try rows.prefix(limit).reversed().map { try Rows.message($0) }, hasMore: rows.count > limit)
    }

    func message(id: Int64, viewer: Int64) async throws -> Message? {
        try await db.read(
            """
            SELECT \(messageColumns) FROM messages m
            JOIN members me ON me.conversation_id = m.conversation_id AND me.user_id = ? WHERE m.id = ?
            """, [.integer(Int(viewer)), .integer(Int(id))]
        ).first.map { try Rows.message($0) }
    }

    func message(localId: String, sender: Int64) async throws -> Message? {
        try await db.read(
            "SELECT \(messageColumns) FROM messages m WHERE m.sender_id = ? AND m.local_id = ?", [.integer(Int(sender)), .text(localId)]
        ).first.map { try Rows.message($0) }
    }
}
