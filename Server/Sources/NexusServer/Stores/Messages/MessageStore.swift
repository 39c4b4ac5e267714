import NexusWire

/// A message to store, as the send endpoint hands it to the store.
struct NewMessage: Sendable {
    var conversationId: Int64
    var senderId: Int64
    var localId: String
    var text: String
    var replyTo: Int64? = nil
    /// Files uploaded before; the controller checked each upload is complete.
    var attachments: [Attachment] = []
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
    init(_ m: Message) { self.init(sender: m.senderId, localId: m.localId) }
}

enum SendOutcome: Sendable {
    case created(Message)
    /// The sender had used this localId before: the original message.
    case duplicate(Message)
    /// Neither stored nor answered: the sender is not a member of the conversation, or it
    /// does not exist.
    case notMember
}

/// Messages: sending (with seqs and idempotency), history pages, and single messages.
protocol MessageStore: Sendable {
    /// Stores the messages durably (the commit is on disk when this returns), giving each
    /// the next seq of its conversation, in order. Idempotent per (sender, localId). A
    /// message whose sender is not a member of its conversation, new or resent, is
    /// `.notMember`: checked in the statements that store the group, so the send endpoint
    /// needs no read of its own first (on PostgreSQL, a round trip a send). Outcomes come
    /// in the order of `messages`.
    func send(_ messages: [NewMessage]) async throws -> [SendOutcome]
    /// The seq of message `id` in the conversation, or nil.
    func seq(ofMessage id: Int64, conversationId: Int64) async throws -> Int64?
    /// The seq of the first message sent at or after `time` (one past the last when none is).
    func firstSeq(sentAtOrAfter time: Timestamp, conversationId: Int64) async throws -> Int64
    /// Up to `limit` messages with seq below `before` (or the newest), oldest first.
    func messages(conversationId: Int64, before: Int64?, limit: Int) async throws -> MessagesPage
    /// A message the viewer may see, by id, or by the viewer's own localId.
    func message(id: Int64, viewer: Int64) async throws -> Message?
    func message(localId: String, sender: Int64) async throws -> Message?
}

/// The columns of a message row (`m`), in the order Rows.message reads them.
let messageColumns = "m.id, m.conversation_id, m.seq, m.sender_id, m.local_id, m.text, m.sent_at, m.reply_to, m.edited_at, m.deleted_at, m.reactions, m.attachments, m.membership"

/// One group of messages to send, as both backends take it: the first copy of each
/// (sender, localId) is stored, later copies in the same group are resends of it, and
/// the outcomes come back in the group's order.
struct SendBatch {
    let messages: [NewMessage]
    /// The first copies, with their index in `messages`.
    let fresh: [(index: Int, message: NewMessage)]
    private let first: [MessageKey: Int]

    init(_ messages: [NewMessage]) {
        var first: [MessageKey: Int] = [:]
        var fresh: [(index: Int, message: NewMessage)] = []
        for (index, m) in messages.enumerated() where first[MessageKey(m)] == nil {
            first[MessageKey(m)] = index
            fresh.append((index, m))
        }
        self.messages = messages
        self.fresh = fresh
        self.first = first
    }

    /// Each message's outcome from what was stored for its key: a later copy of a message
    /// created in this group is a duplicate of it. A key neither stored nor found was
    /// left out by the members check.
    func outcomes(_ stored: [MessageKey: SendOutcome]) -> [SendOutcome] {
        messages.enumerated().map { index, m in
            guard let outcome = stored[MessageKey(m)] else { return .notMember }
            guard first[MessageKey(m)] != index, case .created(let message) = outcome else { return outcome }
            return .duplicate(message)
        }
    }
}
