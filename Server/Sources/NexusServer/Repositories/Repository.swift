import NexusCore

/// A message to store, as the send endpoint hands it to the repository.
struct NewMessage: Sendable {
    var conversationId: Int64
    var senderId: Int64
    var localId: String
    var text: String
}

/// A message's idempotency key: the sender and its localId.
struct MessageKey: Hashable {
    var sender: Int64
    var localId: String

    init(sender: Int64, localId: String) {
        self.sender = sender
        self.localId = localId
    }

    init(_ m: NewMessage) { self.init(sender: m.senderId, localId: m.localId) }
}

enum SendOutcome: Sendable {
    case created(Message)
    /// The sender had used this localId before: the original message.
    case duplicate(Message)
}

struct Credentials: Sendable {
    var user: User
    var passwordHash: String
}

/// Who a token belongs to, and when it stops working.
struct StoredSession: Sendable {
    var user: User
    var expiresAt: Timestamp
}

/// Everything nexusd stores, behind one protocol so each database backend is one
/// implementation of it. Conversation reads take the viewer and answer nil for a
/// non-member, so no controller can forget the membership check.
protocol Repository: Sendable {
    func migrate() async throws
    func close() async throws

    /// nil when the email is taken.
    func createUser(email: String, displayName: String, passwordHash: String) async throws -> User?
    func credentials(email: String) async throws -> Credentials?
    func users(excluding viewer: Int64, search: String?) async throws -> [User]
    func user(email: String) async throws -> User?

    func createSession(userId: Int64, tokenHash: String, expiresAt: Timestamp) async throws
    /// The session of a token, expired or not (the caller tells an expired token apart).
    func session(tokenHash: String) async throws -> StoredSession?
    func deleteSession(tokenHash: String) async throws

    /// The direct conversation of the two users, created if it does not exist yet.
    /// Two racing calls for the same pair get the same conversation.
    func openDirect(_ a: Int64, _ b: Int64) async throws -> (id: Int64, created: Bool)
    /// A new group of `creator` and `members` (all distinct), named `name`.
    func createGroup(creator: Int64, members: [Int64], name: String) async throws -> Int64
    func conversation(id: Int64, viewer: Int64) async throws -> Conversation?
    /// The viewer's conversations, most recent first, lean, with their members once each.
    func conversations(viewer: Int64) async throws -> ConversationsResponse
    func memberIds(conversationId: Int64) async throws -> [Int64]

    /// Stores the messages durably (the commit is on disk when this returns), giving each
    /// the next seq of its conversation, in order. Idempotent per (sender, localId).
    /// Outcomes come in the order of `messages`.
    func send(_ messages: [NewMessage]) async throws -> [SendOutcome]
    /// The seq of message `id` in the conversation, or nil.
    func seq(ofMessage id: Int64, conversationId: Int64) async throws -> Int64?
    /// The seq of the first message sent at or after `time` (one past the last when none is).
    func firstSeq(sentAtOrAfter time: Timestamp, conversationId: Int64) async throws -> Int64
    /// Up to `limit` messages with seq below `before` (or the newest), oldest first.
    func messages(conversationId: Int64, before: Int64?, limit: Int) async throws -> MessagesPage

    /// Moves a member's watermarks forward (read implies delivered), never past the last
    /// seq; returns the receipts that moved, each also an event in the members' feeds.
    func advanceReceipts(conversationId: Int64, userId: Int64, delivered: Int64?, read: Int64?) async throws -> [Receipt]
    /// A message the viewer may see, by id, or by the viewer's own localId.
    func message(id: Int64, viewer: Int64) async throws -> Message?
    func message(localId: String, sender: Int64) async throws -> Message?
    /// When each other member's watermarks first reached the message.
    func status(of message: Message) async throws -> [MessageStatus.Member]
    /// Stores last-seen times kept in memory, so they outlive a restart.
    func saveLastSeen(_ times: [Int64: Timestamp]) async throws

    /// The viewer's feed after `after`, oldest first.
    func events(viewer: Int64, after: Int64, conversationId: Int64?, limit: Int) async throws -> [SyncEvent]
    /// The newest `count` message events of the viewer's feed and the feed's head cursor,
    /// read so that nothing falls between them.
    func lastMessageEvents(viewer: Int64, conversationId: Int64?, count: Int) async throws -> (events: [SyncEvent], head: Int64)
}

/// A member's watermarks moved forward by a receipts request: read implies delivered,
/// neither goes back or past the conversation's last seq. `moved` holds a receipt for each
/// mark that moved, the ones both backends store and put in the feed.
struct AdvancedMarks {
    var delivered: Int64
    var read: Int64
    var moved: [Receipt]

    init(lastSeq: Int64, delivered current: Int64, read currentRead: Int64, asked: (delivered: Int64?, read: Int64?),
         userId: Int64, at now: Timestamp) {
        read = min(lastSeq, max(currentRead, asked.read ?? 0))
        delivered = min(lastSeq, max(current, asked.delivered ?? 0, read))
        moved = []
        if delivered > current { moved.append(Receipt(userId: userId, kind: .delivered, seq: delivered, at: now)) }
        if read > currentRead { moved.append(Receipt(userId: userId, kind: .read, seq: read, at: now)) }
    }
}

/// `s` with LIKE's wildcards and the escape character itself escaped by a backslash, for
/// a pattern written with `ESCAPE '\'`; both backends search the directory this way.
func escapeLikePattern(_ s: String) -> String {
    var out = ""
    for c in s {
        if c == "%" || c == "_" || c == "\\" { out.append("\\") }
        out.append(c)
    }
    return out
}
