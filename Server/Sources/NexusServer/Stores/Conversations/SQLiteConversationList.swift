import NexusWire

/// The conversation list on SQLite, read through SQLiteReadConnection and written straight
/// into JSONWriter: the same bytes as `ConversationsResponse.jsonBytes()` of the list
/// `SQLiteConversationStore.conversations(viewer:)` builds (ConversationListJSONTests
/// compares them), several times faster for someone in thousands of conversations.
///
/// Three statements in one read transaction, so the members and users match the list:
/// the conversations with their last message; the members of all of them at once (one
/// join, instead of three subqueries per conversation for their ids, readers and reads);
/// the users, one lookup each.
enum SQLiteConversationList {
    /// Columns by index: see `writeConversation`. The unread count (messages from others
    /// above the viewer's read seq) needs no look at other messages when the viewer has read
    /// up to the last one, or up to the one before it: then only the last can count.
    ///
    /// `(SELECT ?)`, here and in `membersSQL`: a bare parameter compared with a joined
    /// table's column makes SQLite re-prepare the kept statement at every new binding
    /// (SQLiteFeedStore.events); the plan is the same.
    static let conversationsSQL = """
        SELECT c.id, c.kind, c.name, c.last_seq, c.created_at, c.updated_at,
            CASE WHEN me.read_seq >= c.last_seq THEN 0
                WHEN me.read_seq + 1 = c.last_seq AND m.seq = c.last_seq THEN m.sender_id != me.user_id
                ELSE (SELECT COUNT(*) FROM messages um
                    WHERE um.conversation_id = c.id AND um.seq > me.read_seq AND um.sender_id != me.user_id) END,
            m.id, m.conversation_id, m.seq, m.sender_id, m.local_id, m.text, m.sent_at, m.reply_to,
            m.edited_at, m.deleted_at, m.reactions, m.attachments, m.membership
        FROM members me
        JOIN conversations c ON c.id = me.conversation_id
        LEFT JOIN messages m ON m.id = c.last_message_id
        WHERE me.user_id = (SELECT ?)
        """

    /// Every member of the viewer's conversations, a conversation's members together (in
    /// the index's order, no sort; ordering by user too would sort them all): this, a
    /// share's condition, then `ORDER BY me.conversation_id`.
    static let membersSQL = """
        SELECT mb.conversation_id, mb.user_id, mb.read_seq FROM members me
        JOIN members mb ON mb.conversation_id = me.conversation_id
        WHERE me.user_id = (SELECT ?)
        """

    /// Incoming hooks' bots: they post and never read (ConversationRows.readers).
    static let hookBotsSQL = "SELECT bot_id FROM hooks WHERE bot_id IS NOT NULL"

    static let userSQL = "SELECT id, email, display_name, last_seen_at, bot FROM users WHERE id = ?"

    /// The members of the viewer's conversations, flat, with where each conversation's are.
    struct Members {
        var ranges: [Int64: Range<Int>] = [:]
        var userIds: [Int64] = []
        var readSeqs: [Int64] = []
    }

    /// Which of the viewer's conversations one read takes: all of them, or those with ids
    /// below or from a split (SQLiteConversationList+Halves reads the two at once). Halves by
    /// id keep apart the pages each reads: conversations and their rows were written in id order.
    enum Share {
        case all, below(Int64), from(Int64)

        /// Kept statements are keyed by their SQL: one each for every kind of share.
        private var condition: String {
            switch self {
            case .all: ""
            case .below: " AND me.conversation_id < (SELECT ?)"
            case .from: " AND me.conversation_id >= (SELECT ?)"
            }
        }
        var conversationsSQL: String { SQLiteConversationList.conversationsSQL + condition }
        var membersSQL: String { SQLiteConversationList.membersSQL + condition + " ORDER BY me.conversation_id" }

        func binds(viewer: Int64) -> [Int64] {
            switch self {
            case .all: [viewer]
            case .below(let split), .from(let split): [viewer, split]
            }
        }
    }

    /// The conversations of one read, written, and the order they go in.
    struct Part {
        var items: JSONWriter
        /// Most recent first, as `conversations(viewer:)` orders them.
        var order: [(updatedAt: Int64, id: Int64, bytes: Range<Int>)]
        /// The members of the conversations written, for the users after them.
        var shown: Set<Int64>
    }

    /// The list of `viewer` as JSON, only the conversations in `allowed` when it is given
    /// (a token limited to some), the users as `present` shows them. Runs on `connection`'s thread.
    static func json(
        viewer: Int64, allowed: Set<Int64>?, present: @Sendable (User) -> User, on connection: SQLiteReadConnection
    ) throws -> [UInt8] {
        try connection.execute("BEGIN")
        do {
            let part = try self.part(viewer: viewer, allowed: allowed, share: .all, hookBots: try hookBots(on: connection), on: connection)
            let bytes = try assemble([part], present: present, on: connection)
            try connection.execute("COMMIT")
            return bytes
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Incoming hooks' bots; the first read of a transaction, so it fixes what the rest sees.
    static func hookBots(on connection: SQLiteReadConnection) throws -> Set<Int64> {
        var hookBots = Set<Int64>()
        try connection.query(hookBotsSQL, []) { row in if let id = row.int(0) { hookBots.insert(id) } }
        return hookBots
    }

    /// The conversations of `share`, each written whole, in a read transaction already begun.
    static func part(
        viewer: Int64, allowed: Set<Int64>?, share: Share, hookBots: Set<Int64>, on connection: SQLiteReadConnection
    ) throws -> Part {
        let members = try self.members(viewer: viewer, share: share, on: connection)
        // About what a conversation with a short last message takes, so the bytes rarely move.
        var part = Part(items: JSONWriter(capacity: 4096 + members.ranges.count * 400), order: [], shown: [])
        part.order.reserveCapacity(members.ranges.count)
        try connection.query(share.conversationsSQL, share.binds(viewer: viewer)) { row in
            let id = row.int(0) ?? 0
            if let allowed, !allowed.contains(id) { return }
            let memberIds = members.ranges[id].map { members.userIds[$0] } ?? []
            part.shown.formUnion(memberIds)
            // After the first, each item starts with the comma the writer puts between them.
            let start = part.items.bytes.count + (part.order.isEmpty ? 0 : 1)
            writeConversation(row, id: id, memberIds: memberIds, viewer: viewer, members: members, hookBots: hookBots, to: &part.items)
            part.order.append((row.int(5) ?? 0, id, start..<part.items.bytes.count))
        }
        // Sorted here, because SQLite's sort of whole rows took more than half of the query's time.
        part.order.sort { ($0.updatedAt, $0.id) > ($1.updatedAt, $1.id) }
        return part
    }

    /// The answer: the parts' conversations merged in their order, then their members as users.
    static func assemble(_ parts: [Part], present: @Sendable (User) -> User, on connection: SQLiteReadConnection) throws -> [UInt8] {
        let shown = parts.reduce(into: Set<Int64>()) { $0.formUnion($1.shown) }
        var w = JSONWriter(capacity: parts.reduce(0) { $0 + $1.items.bytes.count } + shown.count * 120 + 64)
        w.beginObject()
        w.key("conversations")
        w.beginArray()
        // Each part is in order already: take the most recent head each time.
        var next = Array(repeating: 0, count: parts.count)
        while true {
            var best: Int?
            for p in parts.indices where next[p] < parts[p].order.count {
                let item = parts[p].order[next[p]]
                if let b = best, (parts[b].order[next[b]].updatedAt, parts[b].order[next[b]].id) > (item.updatedAt, item.id) { continue }
                best = p
            }
            guard let p = best else { break }
            w.rawValue(parts[p].items.bytes[parts[p].order[next[p]].bytes])
            next[p] += 1
        }
        w.endArray()
        w.key("users")
        w.beginArray()
        for id in shown.sorted() {
            try connection.query(userSQL, [id]) { row in
                let user = User(
                    id: row.int(0) ?? 0, email: row.text(1) ?? "", displayName: row.text(2) ?? "",
                    lastSeenAt: row.int(3).map(Timestamp.init(milliseconds:)), bot: row.int(4).map { $0 != 0 } == true ? true : nil)
                present(user).write(to: &w)
            }
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }

    private static func members(viewer: Int64, share: Share, on connection: SQLiteReadConnection) throws -> Members {
        var members = Members()
        var current: Int64?
        var start = 0
        try connection.query(share.membersSQL, share.binds(viewer: viewer)) { row in
            let conversation = row.int(0) ?? 0
            if conversation != current {
                if let current { members.ranges[current] = start..<members.userIds.count }
                current = conversation
                start = members.userIds.count
            }
            members.userIds.append(row.int(1) ?? 0)
            members.readSeqs.append(row.int(2) ?? 0)
        }
        if let current { members.ranges[current] = start..<members.userIds.count }
        // The primary key gives each conversation's members in user id order already; the
        // list wants them so whatever plan SQLite takes.
        for range in members.ranges.values where !members.userIds[range].isSorted {
            let order = range.sorted { members.userIds[$0] < members.userIds[$1] }
            let (ids, seqs) = (order.map { members.userIds[$0] }, order.map { members.readSeqs[$0] })
            members.userIds.replaceSubrange(range, with: ids)
            members.readSeqs.replaceSubrange(range, with: seqs)
        }
        return members
    }

    /// One object of the list, in the field order of `ConversationsResponse.jsonBytes()`.
    private static func writeConversation(
        _ row: SQLiteCursor, id: Int64, memberIds: ArraySlice<Int64>, viewer: Int64, members: Members, hookBots: Set<Int64>,
        to w: inout JSONWriter
    ) {
        w.beginObject()
        w.key("id"); w.int(id)
        w.key("kind"); w.string((ConversationKind(rawValue: row.text(1) ?? "") ?? .direct).rawValue)
        if let name = row.bytes(2) { w.key("name"); w.string(utf8: name) }
        w.key("memberIds")
        w.beginArray()
        for member in memberIds { w.int(member) }
        w.endArray()
        w.key("lastSeq"); w.int(row.int(3) ?? 0)
        var readBy: Int64?
        var readers: Int64?
        if row.int(7) != nil {
            w.key("lastMessage")
            writeMessage(row, to: &w)
            if row.int(10) == viewer, let range = members.ranges[id] {
                // As the SQL of `conversations(viewer:)`: others who read up to it, and
                // others who read at all (not hooks' bots).
                let seq = row.int(9) ?? 0
                var by: Int64 = 0, all: Int64 = 0
                for i in range where members.userIds[i] != viewer {
                    if members.readSeqs[i] >= seq { by += 1 }
                    if !hookBots.contains(members.userIds[i]) { all += 1 }
                }
                (readBy, readers) = (by, all)
            } else if row.int(10) == viewer {
                (readBy, readers) = (0, 0)
            }
        }
        w.key("createdAt"); w.timestamp(Timestamp(milliseconds: row.int(4) ?? 0))
        w.key("updatedAt"); w.timestamp(Timestamp(milliseconds: row.int(5) ?? 0))
        w.key("unreadCount"); w.int(row.int(6) ?? 0)
        if let readBy { w.key("lastMessageReadBy"); w.int(readBy) }
        if let readers { w.key("lastMessageReaders"); w.int(readers) }
        w.endObject()
    }

    /// The last message (columns 7-19), as `Message.write(to:)` writes it. One with
    /// reactions, files or a membership event goes through the model, whose columns hold JSON.
    private static func writeMessage(_ row: SQLiteCursor, to w: inout JSONWriter) {
        if !row.isNull(17) || !row.isNull(18) || !row.isNull(19) {
            let message = Message(
                id: row.int(7) ?? 0, conversationId: row.int(8) ?? 0, seq: row.int(9) ?? 0, senderId: row.int(10) ?? 0,
                localId: row.text(11) ?? "", text: row.text(12) ?? "", sentAt: Timestamp(milliseconds: row.int(13) ?? 0),
                replyTo: row.int(14), editedAt: row.int(15).map(Timestamp.init(milliseconds:)),
                deletedAt: row.int(16).map(Timestamp.init(milliseconds:)),
                reactions: row.text(17).flatMap(ReactionsColumn.decode), attachments: AttachmentColumn.decode(row.text(18)),
                membership: MembershipColumn.decode(row.text(19)))
            return message.write(to: &w)
        }
        w.beginObject()
        w.key("id"); w.int(row.int(7) ?? 0)
        w.key("conversationId"); w.int(row.int(8) ?? 0)
        w.key("seq"); w.int(row.int(9) ?? 0)
        w.key("senderId"); w.int(row.int(10) ?? 0)
        w.key("localId"); w.string(utf8: row.bytes(11) ?? UnsafeBufferPointer(start: nil, count: 0))
        w.key("text"); w.string(utf8: row.bytes(12) ?? UnsafeBufferPointer(start: nil, count: 0))
        w.key("sentAt"); w.timestamp(Timestamp(milliseconds: row.int(13) ?? 0))
        if let replyTo = row.int(14) { w.key("replyTo"); w.int(replyTo) }
        if let editedAt = row.int(15) { w.key("editedAt"); w.timestamp(Timestamp(milliseconds: editedAt)) }
        if let deletedAt = row.int(16) { w.key("deletedAt"); w.timestamp(Timestamp(milliseconds: deletedAt)) }
        w.endObject()
    }
}

private extension ArraySlice<Int64> {
    var isSorted: Bool { zip(self, dropFirst()).allSatisfy { $0 <= $1 } }
}
