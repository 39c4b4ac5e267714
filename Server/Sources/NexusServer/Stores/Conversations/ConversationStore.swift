import NexusWire

/// Conversations and their membership. Reads take the viewer and answer nil for a
/// non-member, so no controller can forget the membership check.
protocol ConversationStore: Sendable {
    /// The direct conversation of the two users, created if it does not exist yet.
    /// Two racing calls for the same pair get the same conversation.
    func openDirect(_ a: Int64, _ b: Int64) async throws -> (id: Int64, created: Bool)
    /// A new group of `creator` and `members` (all distinct), named `name`.
    func createGroup(creator: Int64, members: [Int64], name: String) async throws -> Int64
    func conversation(id: Int64, viewer: Int64) async throws -> Conversation?
    /// The viewer's conversations, most recent first, lean, with their members once each.
    func conversations(viewer: Int64) async throws -> ConversationsResponse
    func memberIds(conversationId: Int64) async throws -> [Int64]
    /// Whether the two users are members of one conversation.
    func share(_ a: Int64, _ b: Int64) async throws -> Bool
    /// The viewer's list as the JSON of ConversationsResponse: only the conversations in
    /// `allowed` when given (a token limited to some) and their members, users as `present`
    /// shows them.
    func conversationListJSON(viewer: Int64, allowed: Set<Int64>?, present: @escaping @Sendable (User) -> User) async throws -> [UInt8]
}

extension ConversationStore {
    func conversationListJSON(viewer: Int64, allowed: Set<Int64>?, present: @escaping @Sendable (User) -> User) async throws -> [UInt8] {
        try await listJSONFromModels(viewer: viewer, allowed: allowed, present: present)
    }

    /// The list from `conversations(viewer:)`, as PostgreSQL answers it; SQLite reads and
    /// writes it in one pass instead (SQLiteConversationList), with the same bytes.
    func listJSONFromModels(viewer: Int64, allowed: Set<Int64>?, present: @Sendable (User) -> User) async throws -> [UInt8] {
        var list = try await conversations(viewer: viewer)
        if let allowed {
            list.conversations = list.conversations.filter { allowed.contains($0.id) }
            let shown = Set(list.conversations.flatMap(\.memberIds))
            list.users = list.users.filter { shown.contains($0.id) }
        }
        list.users = list.users.map(present)
        // Thousands of conversations: the hand-written encoder, not Codable's (see JSONWriter).
        return list.jsonBytes()
    }
}

/// What both backends share about conversations: the key of a direct one, the columns
/// their SQL selects and how rows of those columns become models.
enum ConversationRows {
    /// The unique key of the direct conversation of two users, whichever opens it.
    static func directKey(_ a: Int64, _ b: Int64) -> String { "\(min(a, b)):\(max(a, b))" }

    /// `share`'s query on both backends (ids are integers, safe inline).
    static func shareSQL(_ a: Int64, _ b: Int64) -> String {
        "SELECT 1 AS shared FROM members x JOIN members y ON y.conversation_id = x.conversation_id WHERE x.user_id = \(a) AND y.user_id = \(b) LIMIT 1"
    }

    /// A conversation's columns (`c`), its unread count for the member `me`, and its last
    /// message (`m`) with each column prefixed `m_`.
    static let columns = """
        c.id, c.kind, c.name, c.last_seq, c.created_at, c.updated_at,
        (SELECT COUNT(*) FROM messages um WHERE um.conversation_id = c.id AND um.seq > me.read_seq AND um.sender_id != me.user_id) AS unread,
        m.id AS m_id, m.conversation_id AS m_conversation_id, m.seq AS m_seq, m.sender_id AS m_sender_id,
        m.local_id AS m_local_id, m.text AS m_text, m.sent_at AS m_sent_at, m.reply_to AS m_reply_to,
        m.edited_at AS m_edited_at, m.deleted_at AS m_deleted_at, m.reactions AS m_reactions, m.attachments AS m_attachments,
        m.membership AS m_membership
        """

    /// The members of conversations, for `hydrate`: conversation_id, delivered_seq, read_seq
    /// and the user's columns.
    static let memberColumns = "mb.conversation_id, mb.delivered_seq, mb.read_seq, u.id, u.email, u.display_name, u.last_seen_at, u.bot, "
        + "NOT \(notHookBot) AS hook_bot"

    /// True for a member (`u`) who is not an incoming hook's bot. A hook's bot
    /// posts and never reads, so it has no receipts and no place in "Read by N/M".
    static let notHookBot = "NOT EXISTS (SELECT 1 FROM hooks hb WHERE hb.bot_id = u.id)"

    /// For the list: when the viewer (`me`) sent the last message (`m`), how many other
    /// members read at all (not hooks' bots), so a client can tell "read by all".
    static let readers = """
        CASE WHEN m.sender_id = me.user_id THEN (SELECT COUNT(*) FROM members o WHERE o.conversation_id = c.id
            AND o.user_id != me.user_id AND NOT EXISTS (SELECT 1 FROM hooks hb WHERE hb.bot_id = o.user_id)) END AS readers
        """

    private static func lastMessage(_ row: some StoreRow) throws -> Message? {
        try row.int("m_id") == nil ? nil : try Rows.message(row, prefix: "m_")
    }

    private static func kind(_ row: some StoreRow) throws -> ConversationKind {
        ConversationKind(rawValue: try row.text("kind") ?? "") ?? .direct
    }

    /// A line of the conversation list from a row of `columns` and read_by.
    static func summary(_ row: some StoreRow, memberIds: [Int64]) throws -> ConversationSummary {
        ConversationSummary(
            id: try row.int("id") ?? 0,
            kind: try kind(row),
            name: try row.text("name"),
            memberIds: memberIds,
            lastSeq: try row.int("last_seq") ?? 0,
            lastMessage: try lastMessage(row),
            createdAt: try Rows.timestamp(row, "created_at") ?? Timestamp(milliseconds: 0),
            updatedAt: try Rows.timestamp(row, "updated_at") ?? Timestamp(milliseconds: 0),
            unreadCount: Int(try row.int("unread") ?? 0),
            lastMessageReadBy: try row.int("read_by").map(Int.init),
            lastMessageReaders: try row.int("readers").map(Int.init))
    }

    /// Conversations from rows of `columns`, with their members and receipts from
    /// `memberRows` (rows of `memberColumns` for the given conversation ids, ordered by
    /// conversation and user).
    static func hydrate<Row: StoreRow, MemberRow: StoreRow>(
        _ rows: [Row], memberRows: ([Int64]) async throws -> [MemberRow]
    ) async throws -> [Conversation] {
        guard !rows.isEmpty else { return [] }
        var members: [Int64: [User]] = [:]
        var receipts: [Int64: [MemberReceipts]] = [:]
        for row in try await memberRows(try rows.compactMap { try $0.int("id") }) {
            let conversationId = try row.int("conversation_id") ?? 0
            let user = try Rows.user(row)
            members[conversationId, default: []].append(user)
            if try row.flag("hook_bot") == true { continue }
            receipts[conversationId, default: []].append(MemberReceipts(
                userId: user.id, deliveredSeq: try row.int("delivered_seq") ?? 0, readSeq: try row.int("read_seq") ?? 0))
        }
        return try rows.map { row in
            let id = try row.int("id") ?? 0
            return Conversation(
                id: id,
                kind: try kind(row),
                name: try row.text("name"),
                members: members[id] ?? [],
                lastSeq: try row.int("last_seq") ?? 0,
                lastMessage: try lastMessage(row),
                createdAt: try Rows.timestamp(row, "created_at") ?? Timestamp(milliseconds: 0),
                updatedAt: try Rows.timestamp(row, "updated_at") ?? Timestamp(milliseconds: 0),
                unreadCount: try row.int("unread").map(Int.init),
                receipts: receipts[id] ?? [])
        }
    }
}
