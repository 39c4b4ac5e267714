import NexusWire

/// Each user's feed: the events of their conversations, after a sync cursor.
protocol FeedStore: Sendable {
    /// The viewer's feed after `after`, oldest first.
    func events(viewer: Int64, after: Int64, conversationId: Int64?, limit: Int) async throws -> [SyncEvent]
    /// The newest `count` message events of the viewer's feed and the feed's head cursor,
    /// read so that nothing falls between them.
    func lastMessageEvents(viewer: Int64, conversationId: Int64?, count: Int) async throws -> (events: [SyncEvent], head: Int64)
    /// Event `id` (in `conversationId`, when given) with what FeedCheck reads, whoever is in
    /// its conversation now: a cursor stays this history's after its viewer left a group
    /// whose event it sits on. A conversation event carries only the conversation's id and
    /// creation time: every long poll checks its cursor, and one on a group's creation
    /// would otherwise read all its members (1,000 in a big group).
    func eventToCheck(id: Int64, conversationId: Int64?) async throws -> SyncEvent?
}

enum FeedRows {
    /// A conversation as FeedCheck reads it (`eventToCheck`): its id and creation time.
    static func checked(_ row: some StoreRow) throws -> Conversation? {
        guard let id = try row.int("id"), let createdAt = try Rows.timestamp(row, "created_at") else { return nil }
        return Conversation(id: id, kind: .group, name: nil, members: [], lastSeq: 0, lastMessage: nil, createdAt: createdAt, updatedAt: createdAt)
    }

    /// An event (`e`, prefixed `e_`) with its message (`m`) or its receipt (`r`, prefixed `r_`).
    /// A change (`x`, prefixed `x_`) reads of its message only the seq, and an edit the text:
    /// a reaction to a message with hundreds of them must not read them all again.
    static let columns = """
        e.id AS e_id, e.conversation_id AS e_conversation_id, e.type AS e_type,
        m.id, m.conversation_id, m.seq, m.sender_id, m.local_id, m.sent_at, m.reply_to, m.edited_at, m.deleted_at,
        CASE WHEN e.type = 'change' AND x.kind <> 'edit' THEN NULL ELSE m.text END AS text,
        CASE WHEN e.type = 'change' THEN NULL ELSE m.reactions END AS reactions,
        CASE WHEN e.type = 'change' THEN NULL ELSE m.attachments END AS attachments,
        CASE WHEN e.type = 'change' THEN NULL ELSE m.membership END AS membership,
        x.kind AS x_kind, x.user_id AS x_user_id, x.emoji AS x_emoji, x.at AS x_at,
        r.user_id AS r_user_id, r.kind AS r_kind, r.seq AS r_seq, r.at AS r_at
        """

    /// What `columns` reads besides the event: its message (a change's, too), change or receipt.
    static let joins = """
        LEFT JOIN message_changes x ON e.type = 'change' AND x.id = e.ref_id
        LEFT JOIN messages m ON m.id = CASE e.type WHEN 'message' THEN e.ref_id WHEN 'change' THEN x.message_id END
        LEFT JOIN receipts r ON e.type = 'receipt' AND r.id = e.ref_id
        """

    /// Events from rows of `columns`; a conversation event carries the conversation as
    /// the viewer sees it now, from `conversation`.
    static func events<Row: StoreRow>(
        _ rows: some Collection<Row>, conversation: (Int64) async throws -> Conversation?
    ) async throws -> [SyncEvent] {
        var events: [SyncEvent] = []
        events.reserveCapacity(rows.count)
        for row in rows {
            let id = try row.int("e_id") ?? 0
            let conversationId = try row.int("e_conversation_id") ?? 0
            switch try row.text("e_type") {
            case "message":
                events.append(SyncEvent(id: id, type: .message, conversationId: conversationId, message: try Rows.message(row)))
            case "change":
                let kind = MessageChange.Kind(rawValue: try row.text("x_kind") ?? "") ?? .edit
                let change = MessageChange(
                    kind: kind, userId: try row.int("x_user_id") ?? 0, emoji: try row.text("x_emoji"),
                    at: try Rows.timestamp(row, "x_at") ?? Timestamp(milliseconds: 0), seq: try row.int("seq") ?? 0,
                    text: kind == .edit ? try row.text("text") ?? "" : nil)
                // The check stays what it was when a change carried its message: a cursor
                // saved on one before still names it.
                let check = FeedCheck.of(SyncEvent(id: id, type: .message, conversationId: conversationId, message: try Rows.message(row)))
                events.append(SyncEvent(id: id, type: .message, conversationId: conversationId, change: change, check: check))
            case "receipt":
                let receipt = Receipt(
                    userId: try row.int("r_user_id") ?? 0,
                    kind: ReceiptKind(rawValue: try row.text("r_kind") ?? "") ?? .delivered,
                    seq: try row.int("r_seq") ?? 0,
                    at: try Rows.timestamp(row, "r_at") ?? Timestamp(milliseconds: 0))
                events.append(SyncEvent(id: id, type: .receipt, conversationId: conversationId, receipt: receipt))
            default:
                let conversation = try await conversation(conversationId)
                events.append(SyncEvent(id: id, type: .conversation, conversationId: conversationId, conversation: conversation))
            }
        }
        return events
    }
}
