/// Request and response bodies of the /v1 endpoints.

public struct RegisterRequest: Codable, Sendable {
    public var email: String
    public var password: String
    public var displayName: String?
    public init(email: String, password: String, displayName: String?) {
        self.email = email
        self.password = password
        self.displayName = displayName
    }
}

public struct LoginRequest: Codable, Sendable {
    public var email: String
    public var password: String
    public init(email: String, password: String) {
        self.email = email
        self.password = password
    }
}

public struct AuthResponse: Codable, Sendable {
    public var token: String
    public var user: User
    /// When the token stops working; `login` again for a new one.
    public var expiresAt: Timestamp?
    public init(token: String, user: User, expiresAt: Timestamp? = nil) {
        self.token = token
        self.user = user
        self.expiresAt = expiresAt
    }
}

public struct UsersResponse: Codable, Sendable {
    public var users: [User]
    public init(users: [User]) { self.users = users }
}

public struct CreateConversationRequest: Codable, Sendable {
    public var kind: ConversationKind
    /// The other members' emails.
    public var members: [String]
    public var name: String?
    public init(kind: ConversationKind, members: [String], name: String? = nil) {
        self.kind = kind
        self.members = members
        self.name = name
    }
}

public struct ConversationResponse: Codable, Sendable {
    public var conversation: Conversation
    /// False when an existing conversation was returned.
    public var created: Bool
    public init(conversation: Conversation, created: Bool) {
        self.conversation = conversation
        self.created = created
    }
}

/// A conversation as the list shows it: lean, because a person may have thousands.
/// Members come as ids; their details are in the list's `users`, once each.
public struct ConversationSummary: Codable, Hashable, Sendable {
    public var id: Int64
    public var kind: ConversationKind
    public var name: String?
    public var memberIds: [Int64]
    public var lastSeq: Int64
    public var lastMessage: Message?
    public var createdAt: Timestamp
    public var updatedAt: Timestamp
    /// Messages from others above the viewer's read watermark.
    public var unreadCount: Int
    /// When the last message is the viewer's: how many other members have read it.
    public var lastMessageReadBy: Int?
    /// When the last message is the viewer's: how many other members read at all, so
    /// "read by all" is `lastMessageReadBy == lastMessageReaders`. Incoming hooks' bots post
    /// and never read, so they are left out, as from "Read by N/M". Nil from an older server.
    public var lastMessageReaders: Int?

    public init(
        id: Int64, kind: ConversationKind, name: String?, memberIds: [Int64], lastSeq: Int64, lastMessage: Message?,
        createdAt: Timestamp, updatedAt: Timestamp, unreadCount: Int, lastMessageReadBy: Int?, lastMessageReaders: Int? = nil
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.memberIds = memberIds
        self.lastSeq = lastSeq
        self.lastMessage = lastMessage
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.unreadCount = unreadCount
        self.lastMessageReadBy = lastMessageReadBy
        self.lastMessageReaders = lastMessageReaders
    }

    /// True when the last message is the viewer's and every member who reads has read it.
    public var lastMessageReadByAll: Bool {
        guard let readBy = lastMessageReadBy, readBy > 0 else { return false }
        return readBy == (lastMessageReaders ?? memberIds.count - 1)
    }

    /// What a person calls it: the group name, or the other members' names.
    public func title(viewer: Int64, users: [Int64: User]) -> String {
        if let name, !name.isEmpty { return name }
        let others = memberIds.filter { $0 != viewer }
        if others.isEmpty { return users[viewer]?.displayName ?? "conversation \(id)" }
        return others.map { users[$0]?.shownName ?? "user \($0)" }.joined(separator: ", ")
    }
}

public struct ConversationsResponse: Codable, Sendable, Equatable {
    /// Most recent first.
    public var conversations: [ConversationSummary]
    /// Every member of those conversations, once.
    public var users: [User]
    /// The viewer's mutes in force; absent when there are none.
    public var mutes: [Mute]?
    public init(conversations: [ConversationSummary], users: [User], mutes: [Mute]? = nil) {
        self.conversations = conversations
        self.users = users
        self.mutes = mutes
    }
}

public struct SendRequest: Codable, Equatable, Sendable {
    public var localId: String
    public var text: String
    /// The seq of the message in this conversation that this one answers.
    public var replyTo: Int64?
    /// Files uploaded before (`/v1/uploads`), by their SHA-256.
    public var attachments: [Attachment]?
    public init(localId: String, text: String, replyTo: Int64? = nil, attachments: [Attachment]? = nil) {
        self.localId = localId
        self.text = text
        self.replyTo = replyTo
        self.attachments = attachments
    }
}

public struct SendResponse: Codable, Equatable, Sendable {
    public var message: Message
    /// True when this localId had been accepted before and the original is returned.
    public var duplicate: Bool
    public init(message: Message, duplicate: Bool) {
        self.message = message
        self.duplicate = duplicate
    }
}

public struct MessagesPage: Codable, Sendable {
    /// Oldest first.
    public var messages: [Message]
    /// True when older messages exist before the first one here.
    public var hasMore: Bool
    public init(messages: [Message], hasMore: Bool) {
        self.messages = messages
        self.hasMore = hasMore
    }
}

public struct SyncResponse: Codable, Sendable {
    public var events: [SyncEvent]
    /// Pass this back as `after` to continue the feed.
    public var cursor: Int64
    /// The check of the event at `cursor` (absent at 0): pass it back as `check`.
    public var cursorCheck: String?
    /// Who is typing in the viewer's conversations right now (not part of the cursor).
    public var typing: [Typing]?
    /// Asked with `presence=`: every contact's state, when it differs from the digest given.
    public var presence: [PresenceState]?
    /// Asked with `presence=`: pass it back as `presence` to hear of the next change.
    public var presenceDigest: String?
    /// Asked with `mutes=`: the viewer's mutes in force, when they differ from the digest given.
    public var mutes: [Mute]?
    /// Asked with `mutes=`: pass it back as `mutes` to hear of the next change.
    public var mutesDigest: String?
    public init(
        events: [SyncEvent], cursor: Int64, cursorCheck: String? = nil, typing: [Typing]? = nil,
        presence: [PresenceState]? = nil, presenceDigest: String? = nil, mutes: [Mute]? = nil, mutesDigest: String? = nil
    ) {
        self.mutes = mutes
        self.mutesDigest = mutesDigest
        self.events = events
        self.cursor = cursor
        self.cursorCheck = cursorCheck
        self.typing = typing
        self.presence = presence
        self.presenceDigest = presenceDigest
    }

    /// Where this answer leaves a reader of the feed.
    public var position: FeedCursor { FeedCursor(id: cursor, check: cursorCheck) }
}

/// Moves the caller's watermarks forward; a value below the current one changes nothing.
public struct ReceiptsRequest: Codable, Sendable {
    public var delivered: Int64?
    public var read: Int64?
    public init(delivered: Int64? = nil, read: Int64? = nil) {
        self.delivered = delivered
        self.read = read
    }
}

/// Who has a message, and who has read it.
public struct MessageStatus: Codable, Sendable {
    public struct Member: Codable, Sendable {
        public var user: User
        public var deliveredAt: Timestamp?
        public var readAt: Timestamp?
        public init(user: User, deliveredAt: Timestamp?, readAt: Timestamp?) {
            self.user = user
            self.deliveredAt = deliveredAt
            self.readAt = readAt
        }
    }

    public var message: Message
    /// The other members.
    public var members: [Member]
    public init(message: Message, members: [Member]) {
        self.message = message
        self.members = members
    }
}

/// The body of every 4xx and 5xx answer.
public struct ErrorResponse: Codable, Sendable {
    public struct Body: Codable, Sendable, Equatable {
        public var code: String
        public var message: String
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }
    public var error: Body
    public init(code: String, message: String) { self.error = Body(code: code, message: message) }
}

/// One message of a batch send.
public struct BatchItem: Codable, Sendable {
    public var conversationId: Int64
    public var localId: String
    public var text: String
    public var replyTo: Int64?
    public var attachments: [Attachment]?
    public init(conversationId: Int64, localId: String, text: String, replyTo: Int64? = nil, attachments: [Attachment]? = nil) {
        self.conversationId = conversationId
        self.localId = localId
        self.text = text
        self.replyTo = replyTo
        self.attachments = attachments
    }
}

public struct BatchSendRequest: Codable, Sendable {
    public var messages: [BatchItem]
    public init(messages: [BatchItem]) { self.messages = messages }
}

/// The outcome of one item of a batch, in the order of the request.
public struct BatchResult: Codable, Sendable {
    public enum Status: String, Codable, Sendable {
        /// Stored now.
        case created
        /// Stored before under this localId: `message` is the original.
        case duplicate
        /// Refused: `error` says why, with the HTTP status a single send would have had.
        case rejected
    }

    public var localId: String
    public var status: Status
    public var message: Message?
    public var error: ErrorResponse.Body?
    /// For rejected items: the status a single send would have answered (400, 404, 409, 413).
    public var httpStatus: Int?

    public init(localId: String, status: Status, message: Message? = nil, error: ErrorResponse.Body? = nil, httpStatus: Int? = nil) {
        self.localId = localId
        self.status = status
        self.message = message
        self.error = error
        self.httpStatus = httpStatus
    }
}

public struct BatchSendResponse: Codable, Sendable {
    public var results: [BatchResult]
    public init(results: [BatchResult]) { self.results = results }
}

/// `POST /v1/me/password`. `keepSessions`: leave the account's other sessions signed in.
public struct ChangePasswordRequest: Codable, Sendable {
    public var oldPassword: String
    public var newPassword: String
    public var keepSessions: Bool?
    public init(oldPassword: String, newPassword: String, keepSessions: Bool? = nil) {
        self.oldPassword = oldPassword
        self.newPassword = newPassword
        self.keepSessions = keepSessions
    }
}

/// `PATCH /v1/me`: the fields to change; an absent one stays as it is.
public struct ProfileChangeRequest: Codable, Sendable {
    public var displayName: String?
    public init(displayName: String?) { self.displayName = displayName }
}
