import NIOCore
import NexusWire
import PostgresNIO

struct PostgresMembershipStore: MembershipStore {
    let db: PostgresDatabase

    /// The conversation's row is locked first, as a send locks it, so the event's seq is
    /// the next one and no send can take it in between.
    func apply(_ change: MembershipChange) async throws -> MembershipOutcome {
        try await db.transaction { [db] c in try await Self.apply(change, on: c, db) }
    }

    /// The change inside a transaction already under way: an incoming hook's bot joins in
    /// the transaction that makes it, with the same notes to the other replicas.
    static func apply(_ change: MembershipChange, on c: PostgresConnection, _ db: PostgresDatabase) async throws -> MembershipOutcome {
        let logger = db.logger
        let id = change.conversationId
        guard let head = try await c.query(
            "SELECT last_seq, updated_at, name FROM conversations WHERE id = \(id) FOR UPDATE", logger: logger
        ).collect().first else { throw StoreError.inconsistent("conversation \(id)") }
        let (lastSeq, updatedAt, name) = try head.decode((Int64, Int64, String?).self)
        if let row = try await c.query(
            "SELECT \(unescaped: messageColumns) FROM messages m WHERE m.sender_id = \(change.actor.id) AND m.local_id = \(change.localId)",
            logger: logger
        ).collect().first {
            return .duplicate(try Rows.message(row.makeRandomAccess()))
        }
        let before = try await c.query("SELECT user_id FROM members WHERE conversation_id = \(id)", logger: logger).collect()
            .map { try $0.decode(Int64.self) }
        let affected = MembershipRows.affected(change, before: Set(before))
        if let unchanged = MembershipRows.unchanged(change, affected: affected, name: name) { return .unchanged(unchanged) }
        let now = Timestamp.now().milliseconds
        let ids = affected.map(\.id)
        var bots: [Int64] = []
        switch change.kind {
        case .added:
            try await c.query(
                "INSERT INTO members (conversation_id, user_id, joined_at) SELECT \(id), u, \(now) FROM unnest(\(ids)::bigint[]) AS u",
                logger: logger)
        case .removed, .left:
            try await c.query("DELETE FROM members WHERE conversation_id = \(id) AND user_id = ANY(\(ids)::bigint[])", logger: logger)
            bots = try await c.query("\(unescaped: Delegates.botsSQL(conversation: id, owners: ids))", logger: logger).collect()
                .map { try $0.decode(Int64.self) }
            try await c.query("\(unescaped: Delegates.removeSQL(conversation: id, bots: bots))", logger: logger)
            try await c.query("\(unescaped: Delegates.disableSQL(conversation: id, owners: ids, at: now))", logger: logger)
        case .renamed:
            try await c.query("UPDATE conversations SET name = \(change.name ?? "") WHERE id = \(id)", logger: logger)
        }
        let (event, text) = MembershipRows.event(change, affected: affected)
        // The message_inserted trigger writes the feed's event and the new head (PostgresSchema).
        guard let row = try await c.query(
            """
            INSERT INTO messages (conversation_id, seq, sender_id, local_id, text, sent_at, membership)
            VALUES (\(id), \(lastSeq + 1), \(change.actor.id), \(change.localId), \(ByteBuffer(string: text)),
                \(max(now, updatedAt)), \(MembershipColumn.encode(event)))
            RETURNING id, conversation_id, seq, sender_id, local_id, text, sent_at, reply_to, edited_at, deleted_at, reactions, attachments, membership
            """, logger: logger
        ).collect().first else { throw StoreError.inconsistent("membership event") }
        // Before the feed's note, so the other replicas wake by the new members; and those
        // who left wake there too, their polls of the group to be refused.
        if let note = ClusterNote.members(conversationIds: [id]).payload(origin: db.origin) {
            try await c.query("SELECT pg_notify(\(PostgresDatabase.channel), \(note))", logger: logger)
        }
        if change.kind == .removed || change.kind == .left { try await db.notifyWake(ids + bots, on: c) }
        try await db.notifyFeedsMoved([id], on: c)
        let after = change.kind == .added ? before + ids : before.filter { !ids.contains($0) && !bots.contains($0) }
        return .created(try Rows.message(row.makeRandomAccess()), before: before, after: after)
    }

    func members(conversationId: Int64) async throws -> [MemberRow] {
        try await db.rows(
            """
            SELECT \(unescaped: MembershipRows.memberColumns) FROM members mb JOIN users u ON u.id = mb.user_id
            WHERE mb.conversation_id = \(conversationId) ORDER BY u.display_name, u.id
            """
        ).map(MembershipRows.member)
    }

    func owner(ofBot userId: Int64) async throws -> Int64? {
        try await db.rows("SELECT owner_id FROM users WHERE id = \(userId) AND bot").first?["owner_id"].decode(Int64?.self)
    }
}
