import NexusWire
import SQLiteNIO

struct SQLiteMessageChangeStore: MessageChangeStore {
    let db: SQLiteDatabase

    /// One group-commit operation for the whole list, so a flush of many changes costs one fsync.
    func apply(_ changes: [NewChange], limits: ServerLimits) async throws -> [ChangeOutcome] {
        guard !changes.isEmpty else { return [] }
        let now = Timestamp.now()
        return try await db.writer.perform(multiStatement: true) { c in
            var outcomes: [ChangeOutcome] = []
            for change in changes { outcomes.append(try await Self.apply(change, at: now, limits: limits, on: c)) }
            return outcomes
        }
    }

    private static func apply(_ change: NewChange, at now: Timestamp, limits: ServerLimits, on c: SQLiteConnection) async throws -> ChangeOutcome {
        let item = change.item
        if let earlier = try await c.query(
            """
            SELECT \(messageColumns) FROM message_changes x JOIN messages m ON m.id = x.message_id
            WHERE x.user_id = ? AND x.local_id = ?
            """, [.integer(Int(change.userId)), .text(item.localId)]
        ).first {
            return .duplicate(try Rows.message(earlier))
        }
        guard let row = try await c.query(
            "SELECT \(messageColumns) FROM messages m WHERE m.conversation_id = ? AND m.seq = ?",
            [.integer(Int(item.conversationId)), .integer(Int(item.seq))]
        ).first else { return .rejected(ChangeRules.messageNotFound(item)) }
        let before = try Rows.message(row)
        let after: Message
        switch ChangeRules.apply(item, by: change.userId, to: before, at: now, limits: limits) {
        case .failure(let error): return .rejected(error)
        case .success(let m): after = m
        }
        let recorded = try await c.query(
            "INSERT INTO message_changes (message_id, user_id, local_id, kind, emoji, at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            [.integer(Int(before.id)), .integer(Int(change.userId)), .text(item.localId), .text(item.kind.rawValue),
             item.emoji.map { .text($0) } ?? .null, .integer(Int(now.milliseconds))])
        // A change that alters nothing is remembered (for its localId) but is no news.
        guard after != before else { return .created(after) }
        _ = try await c.query(
            "UPDATE messages SET text = ?, edited_at = ?, deleted_at = ?, reactions = ?, attachments = ? WHERE id = ?",
            [.text(after.text), after.editedAt.map { .integer(Int($0.milliseconds)) } ?? .null,
             after.deletedAt.map { .integer(Int($0.milliseconds)) } ?? .null,
             ReactionsColumn.encode(after.reactions).map { .text($0) } ?? .null,
             AttachmentColumn.encode(after.attachments ?? []).map { .text($0) } ?? .null, .integer(Int(after.id))])
        let changeId = Int64(recorded.first?.column("id")?.integer ?? 0)
        _ = try await c.query(
            "INSERT INTO events (conversation_id, type, ref_id) VALUES (?, 'change', ?)", [.integer(Int(after.conversationId)), .integer(Int(changeId))])
        _ = try await c.query(
            HookEventKind.enqueueSQL(
                change: item.kind, changeId: changeId, messageId: after.id, conversationId: after.conversationId, at: now.milliseconds))
        return .created(after, dropped: after.attachments == nil ? before.attachments ?? [] : [])
    }
}
