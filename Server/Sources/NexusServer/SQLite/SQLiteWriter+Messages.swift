import NexusCore
import SQLiteNIO

extension SQLiteWriter {
    private static let messageColumns = "id, conversation_id, seq, sender_id, local_id, text, sent_at"

    /// Inserts a group of messages with one statement whatever its size, so the group
    /// costs one trip to SQLite and one fsync. The statement skips (sender, localId)
    /// pairs already stored and numbers the rest after each conversation's last seq, so
    /// a resend never takes a seq and seqs have no gaps. The window function makes
    /// SQLite compute every row before it inserts any, so all numbers start from the
    /// seqs as they were. Outcomes come back in input order.
    func insert(_ messages: [NewMessage]) async throws -> [SendOutcome] {
        // The first copy of each (sender, localId) goes in; later copies are resends of it.
        var first: [MessageKey: Int] = [:]
        var fresh: [(index: Int, message: NewMessage)] = []
        for (index, m) in messages.enumerated() where first[MessageKey(m)] == nil {
            first[MessageKey(m)] = index
            fresh.append((index, m))
        }

        let sentAt = Int(Timestamp.now().milliseconds)
        var stored: [MessageKey: SendOutcome] = [:]
        for chunk in fresh.chunked(by: 500) {
            let rows = try await connection.query(
                """
                INSERT INTO messages (conversation_id, seq, sender_id, local_id, text, sent_at)
                SELECT v.column1, c.last_seq + ROW_NUMBER() OVER (PARTITION BY v.column1 ORDER BY v.column5),
                       v.column2, v.column3, v.column4, ?
                FROM (VALUES \(Array(repeating: "(?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", "))) AS v
                JOIN conversations c ON c.id = v.column1
                WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.sender_id = v.column2 AND m.local_id = v.column3)
                ORDER BY v.column5
                RETURNING \(Self.messageColumns)
                """,
                [.integer(sentAt)] + chunk.flatMap { index, m -> [SQLiteData] in
                    [.integer(Int(m.conversationId)), .integer(Int(m.senderId)), .text(m.localId), .text(m.text), .integer(index)]
                })
            for row in rows {
                let m = SQLiteRepository.message(row)
                stored[MessageKey(sender: m.senderId, localId: m.localId)] = .created(m)
            }
        }

        // Whatever did not go in was stored before: answer with the original.
        let resent = fresh.map { MessageKey($0.message) }.filter { stored[$0] == nil }
        for chunk in resent.chunked(by: 400) {
            let rows = try await connection.query(
                "SELECT \(Self.messageColumns) FROM messages WHERE (sender_id, local_id) IN (VALUES "
                    + Array(repeating: "(?, ?)", count: chunk.count).joined(separator: ", ") + ")",
                chunk.flatMap { [.integer(Int($0.sender)), .text($0.localId)] })
            for row in rows {
                let m = SQLiteRepository.message(row)
                stored[MessageKey(sender: m.senderId, localId: m.localId)] = .duplicate(m)
            }
        }

        return try messages.enumerated().map { index, m in
            guard let outcome = stored[MessageKey(m)] else { throw SQLiteRepositoryError.inconsistent("message \(m.localId)") }
            guard first[MessageKey(m)] != index, case .created(let message) = outcome else { return outcome }
            return .duplicate(message)
        }
    }
}

extension Array {
    func chunked(by size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
