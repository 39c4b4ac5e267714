import NIOCore
import NexusWire
import PostgresNIO

struct PostgresMessageChangeStore: MessageChangeStore {
    let db: PostgresDatabase

    /// One transaction for the list; each changed message's row is locked while it is
    /// read and rewritten, so two replicas changing one message never lose a reaction.
    func apply(_ changes: [NewChange], limits: ServerLimits) async throws -> [ChangeOutcome] {
        guard !changes.isEmpty else { return [] }
        let now = Timestamp.now()
        return try await db.transaction { [db] c in
            var outcomes: [ChangeOutcome] = []
            var events: [(conversationId: Int64, type: String, refId: Int64)] = []
            for change in changes {
                let (outcome, event) = try await Self.apply(change, at: now, limits: limits, on: c, logger: db.logger)
                outcomes.append(outcome)
                if let event { events.append(event) }
            }
            try await db.appendEvents(events, on: c)
            return outcomes
        }
    }

    private static func apply(
        _ change: NewChange, at now: Timestamp, limits: ServerLimits, on c: PostgresConnection, logger: Logger
    ) async throws -> (ChangeOutcome, (conversationId: Int64, type: String, refId: Int64)?) {
        let item = change.item
        if let earlier = try await c.query(
            """
            SELECT \(unescaped: messageColumns) FROM message_changes x JOIN messages m ON m.id = x.message_id
            WHERE x.user_id = \(change.userId) AND x.local_id = \(item.localId)
            """, logger: logger
        ).collect().first {
            return (.duplicate(try Rows.message(earlier.makeRandomAccess())), nil)
        }
        guard let row = try await c.query(
            "SELECT \(unescaped: messageColumns) FROM messages m WHERE m.conversation_id = \(item.conversationId) AND m.seq = \(item.seq) FOR UPDATE",
            logger: logger
        ).collect().first else { return (.rejected(ChangeRules.messageNotFound(item)), nil) }
        let before = try Rows.message(row.makeRandomAccess())
        let after: Message
        switch ChangeRules.apply(item, by: change.userId, to: before, at: now, limits: limits) {
        case .failure(let error): return (.rejected(error), nil)
        case .success(let m): after = m
        }
        let id = try await c.query(
            """
            INSERT INTO message_changes (message_id, user_id, local_id, kind, emoji, at)
            VALUES (\(before.id), \(change.userId), \(item.localId), \(item.kind.rawValue), \(item.emoji), \(now.milliseconds)) RETURNING id
            """, logger: logger
        ).collect().first?.decode(Int64.self) ?? 0
        guard after != before else { return (.created(after), nil) }
        try await c.query(
            """
            UPDATE messages SET text = \(ByteBuffer(string: after.text)), edited_at = \(after.editedAt?.milliseconds),
                deleted_at = \(after.deletedAt?.milliseconds), reactions = \(ReactionsColumn.encode(after.reactions)),
                attachments = \(AttachmentColumn.encode(after.attachments ?? []))
            WHERE id = \(after.id)
            """, logger: logger)
        try await c.query(
            "\(unescaped: HookEventKind.enqueueSQL(change: item.kind, changeId: id, messageId: after.id, conversationId: after.conversationId, at: now.milliseconds))",
            logger: logger)
        let dropped = after.attachments == nil ? before.attachments ?? [] : []
        return (.created(after, dropped: dropped), (after.conversationId, "change", id))
    }
}
