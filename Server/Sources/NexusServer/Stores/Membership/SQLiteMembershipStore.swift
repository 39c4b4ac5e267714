import NexusWire
import SQLiteNIO

struct SQLiteMembershipStore: MembershipStore {
    let db: SQLiteDatabase

    /// One operation of the single writer, so nothing else takes a seq in between.
    func apply(_ change: MembershipChange) async throws -> MembershipOutcome {
        try await db.writer.perform(multiStatement: true) { db in try await Self.apply(change, on: db) }
    }

    /// The change inside a writer operation already under way: an incoming hook's bot
    /// joins in the operation that makes it.
    static func apply(_ change: MembershipChange, on db: SQLiteConnection) async throws -> MembershipOutcome {
        let now = Int(Timestamp.now().milliseconds)
        let earlier = try await db.query(
            "SELECT \(messageColumns) FROM messages m WHERE m.sender_id = ? AND m.local_id = ?",
            [.integer(Int(change.actor.id)), .text(change.localId)])
        if let row = earlier.first { return .duplicate(try Rows.message(row)) }
        let c = Int(change.conversationId)
        guard let head = try await db.query("SELECT last_seq, updated_at, name FROM conversations WHERE id = ?", [.integer(c)]).first
        else { throw StoreError.inconsistent("conversation \(c)") }
        let before = try await db.query("SELECT user_id FROM members WHERE conversation_id = ?", [.integer(c)]).compactMap { $0.int("user_id") }
        let affected = MembershipRows.affected(change, before: Set(before))
        if let unchanged = MembershipRows.unchanged(change, affected: affected, name: head.text("name")) { return .unchanged(unchanged) }
        for user in affected {
            if change.kind == .added {
                _ = try await db.query(
                    "INSERT INTO members (conversation_id, user_id, joined_at) VALUES (?, ?, ?)",
                    [.integer(c), .integer(Int(user.id)), .integer(now)])
            } else {
                _ = try await db.query("DELETE FROM members WHERE conversation_id = ? AND user_id = ?", [.integer(c), .integer(Int(user.id))])
            }
        }
        var bots: [Int64] = []
        if change.kind == .removed || change.kind == .left {
            let owners = affected.map(\.id)
            bots = try await db.query(Delegates.botsSQL(conversation: change.conversationId, owners: owners)).compactMap { $0.int("user_id") }
            _ = try await db.query(Delegates.removeSQL(conversation: change.conversationId, bots: bots))
            _ = try await db.query(Delegates.disableSQL(conversation: change.conversationId, owners: owners, at: Int64(now)))
        }
        if change.kind == .renamed {
            _ = try await db.query("UPDATE conversations SET name = ? WHERE id = ?", [.text(change.name ?? ""), .integer(c)])
        }
        let (event, text) = MembershipRows.event(change, affected: affected)
        // The message_inserted trigger writes the feed's event and the new head.
        let rows = try await db.query(
            """
            INSERT INTO messages (conversation_id, seq, sender_id, local_id, text, sent_at, membership)
            VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id, conversation_id, seq, sender_id, local_id, text, sent_at,
                reply_to, edited_at, deleted_at, reactions, attachments, membership
            """,
            [
                .integer(c), .integer(Int((head.int("last_seq") ?? 0) + 1)), .integer(Int(change.actor.id)), .text(change.localId),
                .text(text), .integer(max(now, Int(head.int("updated_at") ?? 0))), .text(MembershipColumn.encode(event)),
            ])
        guard let row = rows.first else { throw StoreError.inconsistent("membership event") }
        let after = change.kind == .added ? before + affected.map(\.id) : before.filter { id in !affected.contains { $0.id == id } && !bots.contains(id) }
        return .created(try Rows.message(row), before: before, after: after)
    }

    func members(conversationId: Int64) async throws -> [MemberRow] {
        try await db.read(
            """
            SELECT \(MembershipRows.memberColumns) FROM members mb JOIN users u ON u.id = mb.user_id
            WHERE mb.conversation_id = ? ORDER BY u.display_name, u.id
            """, [.integer(Int(conversationId))]
        ).map(MembershipRows.member)
    }

    func owner(ofBot userId: Int64) async throws -> Int64? {
        try await db.read("SELECT owner_id FROM users WHERE id = ? AND bot = 1", [.integer(Int(userId))]).first?.int("owner_id")
    }
}
