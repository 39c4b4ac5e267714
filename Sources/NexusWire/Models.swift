/// The wire types of the /v1 protocol, shared by nexusctl and nexusd so the protocol
/// has one definition. Field names are part of the JSON contract: see docs/protocol.md.

public struct User: Codable, Hashable, Sendable {
    public var id: Int64
    public var email: String
    public var displayName: String
    /// Presence, where the server tells it: online while a live client of theirs (a
    /// `tail -f`) holds a lease; a one-off request moves only `lastSeenAt`.
    public var online: Bool?
    public var lastSeenAt: Timestamp?
    /// True for a bot account (`nexusctl bot create`); absent for people.
    public var bot: Bool?
    /// When the account was registered. Only the account's own answers and the directory
    /// carry it, and servers before it never sent it: optional so their answers decode.
    public var createdAt: Timestamp?
    /// The account's picture, in `users` and the account's own answers; absent when none.
    public var picture: UserPicture?

    public init(
        id: Int64, email: String, displayName: String, online: Bool? = nil, lastSeenAt: Timestamp? = nil, bot: Bool? = nil,
        createdAt: Timestamp? = nil, picture: UserPicture? = nil
    ) {
        self.picture = picture
        self.id = id
        self.email = email
        self.displayName = displayName
        self.online = online
        self.lastSeenAt = lastSeenAt
        self.bot = bot
        self.createdAt = createdAt
    }

    /// The display name, with " [bot]" after a bot's, for text output.
    public var shownName: String { bot == true ? displayName + " [bot]" : displayName }
}

/// A profile picture: an image uploaded as attachments are (`/v1/uploads`, the same size
/// limit and SHA-256 check), kept as the account's. `url` is its path on the server,
/// `GET` with any token of the server's users.
public struct UserPicture: Codable, Hashable, Sendable {
    public var url: String
    public var name: String
    public var size: Int64
    public var type: String
    public var sha256: String

    public init(url: String, name: String, size: Int64, type: String, sha256: String) {
        self.url = url
        self.name = name
        self.size = size
        self.type = type
        self.sha256 = sha256
    }

    public init(userId: Int64, _ a: Attachment) {
        self.init(url: "/v1/users/\(userId)/picture", name: a.name, size: a.size, type: a.type, sha256: a.sha256)
    }

    public var attachment: Attachment { Attachment(name: name, size: size, type: type, sha256: sha256) }
}

/// One member's receipt watermarks: every message up to `deliveredSeq` reached one of
/// their devices, and they have read every message up to `readSeq`.
public struct MemberReceipts: Codable, Hashable, Sendable {
    public var userId: Int64
    public var deliveredSeq: Int64
    public var readSeq: Int64

    public init(userId: Int64, deliveredSeq: Int64, readSeq: Int64) {
        self.userId = userId
        self.deliveredSeq = deliveredSeq
        self.readSeq = readSeq
    }
}

public enum ReceiptKind: String, Codable, Sendable {
    case delivered, read
}

/// A watermark that moved: `userId` has now had everything up to `seq` delivered (or read).
public struct Receipt: Codable, Hashable, Sendable {
    public var userId: Int64
    public var kind: ReceiptKind
    public var seq: Int64
    public var at: Timestamp

    public init(userId: Int64, kind: ReceiptKind, seq: Int64, at: Timestamp) {
        self.userId = userId
        self.kind = kind
        self.seq = seq
        self.at = at
    }
}

/// Someone typing in a conversation, until `until`.
public struct Typing: Codable, Hashable, Sendable {
    public var conversationId: Int64
    public var userId: Int64
    public var until: Timestamp

    public init(conversationId: Int64, userId: Int64, until: Timestamp) {
        self.conversationId = conversationId
        self.userId = userId
        self.until = until
    }
}

public enum ConversationKind: String, Codable, Sendable {
    case direct
    case group
}

public struct Conversation: Codable, Hashable, Sendable {
    public var id: Int64
    public var kind: ConversationKind
    /// Set for groups; a direct conversation is named after the other member.
    public var name: String?
    public var members: [User]
    /// The seq of the newest message, 0 when there is none.
    public var lastSeq: Int64
    public var lastMessage: Message?
    public var createdAt: Timestamp
    public var updatedAt: Timestamp
    /// Messages from others above the viewer's read watermark.
    public var unreadCount: Int?
    /// Every member's watermarks, the viewer's included.
    public var receipts: [MemberReceipts]?

    public init(
        id: Int64, kind: ConversationKind, name: String?, members: [User], lastSeq: Int64,
        lastMessage: Message?, createdAt: Timestamp, updatedAt: Timestamp, unreadCount: Int? = nil,
        receipts: [MemberReceipts]? = nil
    ) {
        self.unreadCount = unreadCount
        self.receipts = receipts
        self.id = id
        self.kind = kind
        self.name = name
        self.members = members
        self.lastSeq = lastSeq
        self.lastMessage = lastMessage
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// What a person calls this conversation: the group name, or the other member's.
    public func title(viewer: Int64) -> String {
        if let name, !name.isEmpty { return name }
        let others = members.filter { $0.id != viewer }
        if others.isEmpty { return members.first?.displayName ?? "conversation \(id)" }
        return others.map(\.shownName).joined(separator: ", ")
    }
}

public struct Message: Codable, Hashable, Sendable {
    /// Server-wide id, unique across conversations.
    public var id: Int64
    public var conversationId: Int64
    /// Position in the conversation: 1, 2, 3, … with no gaps.
    public var seq: Int64
    public var senderId: Int64
    /// The sender's client-generated idempotency key.
    public var localId: String
    public var text: String
    /// The server's time of acceptance.
    public var sentAt: Timestamp
    /// The seq of the message (in the same conversation) this one answers.
    public var replyTo: Int64?
    /// When the sender last edited the text; absent when never edited.
    public var editedAt: Timestamp?
    /// When the sender deleted it: a tombstone that keeps the seq, with empty text.
    public var deletedAt: Timestamp?
    /// Who reacted with what, in the order each emoji was first used; absent when none.
    public var reactions: [Reaction]?
    /// Files sent with it; absent when none (the text is then their caption, maybe empty).
    public var attachments: [Attachment]?
    /// Set on a membership event (someone added, removed, left, or the group renamed);
    /// `text` then says it in words, for clients that predate membership.
    public var membership: MembershipEvent?

    public init(
        id: Int64, conversationId: Int64, seq: Int64, senderId: Int64, localId: String, text: String,
        sentAt: Timestamp, replyTo: Int64? = nil, editedAt: Timestamp? = nil, deletedAt: Timestamp? = nil,
        reactions: [Reaction]? = nil, attachments: [Attachment]? = nil, membership: MembershipEvent? = nil
    ) {
        self.membership = membership
        self.attachments = attachments
        self.id = id
        self.conversationId = conversationId
        self.seq = seq
        self.senderId = senderId
        self.localId = localId
        self.text = text
        self.sentAt = sentAt
        self.replyTo = replyTo
        self.editedAt = editedAt
        self.deletedAt = deletedAt
        self.reactions = reactions
    }

    /// How a person names it on the command line: `CONVERSATION/SEQ`.
    public var reference: MessageReference { MessageReference(conversationId: conversationId, seq: seq) }
}

/// One emoji (or short text) on a message, and the members who chose it.
public struct Reaction: Codable, Hashable, Sendable {
    public var emoji: String
    public var userIds: [Int64]

    public init(emoji: String, userIds: [Int64]) {
        self.emoji = emoji
        self.userIds = userIds
    }
}

/// What happened to an earlier message. It travels in the feed as a `message` event that
/// carries this and not the message: a reaction to a message with hundreds of them costs a
/// line, not the message again. A client applies it to the copy it holds (`Message.applying`).
public struct MessageChange: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case edit, delete, react, unreact
    }

    public var kind: Kind
    /// Who made the change: the sender for edits and deletes, any member for reactions.
    public var userId: Int64
    public var emoji: String?
    public var at: Timestamp
    /// The changed message's seq in the event's conversation.
    public var seq: Int64
    /// An edit's text: the message's text as it is now.
    public var text: String?

    public init(kind: Kind, userId: Int64, emoji: String? = nil, at: Timestamp, seq: Int64, text: String? = nil) {
        self.kind = kind
        self.userId = userId
        self.emoji = emoji
        self.at = at
        self.seq = seq
        self.text = text
    }
}

public enum EventType: String, Codable, Sendable {
    case message
    case conversation
    case receipt
}

/// One entry of a user's sync feed. `id` is the feed cursor: a client that has handled
/// event N asks for events after N (and passes `check` along, so the server can tell a
/// cursor that is not from its history; see FeedCheck).
public struct SyncEvent: Codable, Hashable, Sendable {
    public var id: Int64
    public var type: EventType
    public var conversationId: Int64
    public var message: Message?
    public var conversation: Conversation?
    public var receipt: Receipt?
    /// On a `message` event: the message is an earlier one, changed (see MessageChange).
    public var change: MessageChange?
    public var check: String?

    public init(
        id: Int64, type: EventType, conversationId: Int64, message: Message? = nil, conversation: Conversation? = nil,
        receipt: Receipt? = nil, change: MessageChange? = nil, check: String? = nil
    ) {
        self.change = change
        self.id = id
        self.type = type
        self.conversationId = conversationId
        self.message = message
        self.conversation = conversation
        self.receipt = receipt
        self.check = check
    }
}
