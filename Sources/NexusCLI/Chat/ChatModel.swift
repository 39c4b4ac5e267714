import LibC
import NexusCore

/// What `chat` shows, shared by the screen (the main thread), the feed's thread and the
/// worker's: each touches it only inside `locked`, and wakes the screen after a change.
final class ChatModel: @unchecked Sendable {
    let me: Int64
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let p = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(p, nil)
        return p
    }()

    /// The conversation list, as `convos` orders it, and the people in it.
    var list: [ConversationSummary] = []
    var people: [Int64: User] = [:]
    /// What the worker has to say on the chat screen (a file saved), until the next key.
    var notice: String?
    /// The account's mutes, as last heard (shown 🔕 in the list).
    var mutes: [Int64: Mute] = [:]
    /// The server that can't be reached, while it can't.
    var offlineServer: String?
    /// The conversation on screen, with its members and receipts.
    var openId: Int64?
    var open: Conversation?
    /// Its messages, by seq, and mine that the server doesn't have yet.
    var messages: [Message] = []
    var pending: [Pending] = []
    var hasMore = false
    var loadingOlder = false
    var book: ReceiptBook
    var typing: TypingBoard
    /// Set when the screen ends: the feed stops following.
    var stopping = false

    struct Pending: Equatable {
        var localId: String
        var text: String
        var queuedAt: Timestamp
        var failure: String?
        /// The seq of the message it answers.
        var replyTo: Int64? = nil
    }

    init(me: Int64) {
        self.me = me
        self.book = ReceiptBook(me: me)
        self.typing = TypingBoard(me: me)
    }

    func locked<T>(_ body: (ChatModel) -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(self)
    }

    /// Changes under the lock, then the screen is drawn again.
    func change(_ body: (ChatModel) -> Void) {
        locked(body)
        TTY.wake()
    }

    // Called under the lock.

    func learn(_ conversation: Conversation) {
        for u in conversation.members { people[u.id] = u }
        book.learn(conversation)
        if conversation.id == openId { open = conversation }
    }

    /// A message of the open conversation, new or fetched again (a page, an acknowledgement):
    /// kept once, by seq, and taking the place of mine that was waiting for it.
    func take(_ message: Message) {
        guard message.conversationId == openId else { return }
        if message.senderId == me { pending.removeAll { $0.localId == message.localId } }
        if let i = messages.lastIndex(where: { $0.seq == message.seq }) {
            messages[i] = message
        } else if let last = messages.last, last.seq > message.seq {
            messages.append(message)
            messages.sort { $0.seq < $1.seq }
        } else {
            messages.append(message)
        }
    }

    /// A change to a message on screen: applied to the copy shown, which the feed doesn't
    /// send again.
    func apply(_ change: MessageChange, in conversationId: Int64) {
        guard conversationId == openId, let i = messages.lastIndex(where: { $0.seq == change.seq }) else { return }
        messages[i] = messages[i].applying(change)
    }

    /// A page of older messages, put before those shown.
    func prepend(_ page: [Message], hasMore more: Bool) {
        let known = Set(messages.map(\.seq))
        messages = page.filter { !known.contains($0.seq) && $0.conversationId == openId } + messages
        messages.sort { $0.seq < $1.seq }
        hasMore = more
        loadingOlder = false
    }

    func presence(_ states: [PresenceState]) {
        for s in states {
            people[s.userId]?.online = s.online
            if let seen = s.lastSeenAt { people[s.userId]?.lastSeenAt = seen }
        }
    }
}

/// A thread of our own for work that waits on the network, run by pthreads (the CLI
/// doesn't import Foundation).
func startThread(_ body: @escaping () -> Void) {
    final class Box: @unchecked Sendable { let body: () -> Void; init(_ b: @escaping () -> Void) { body = b } }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let made = pthread_create(&thread, nil, { arg in
        let box = Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    if made == 0 { pthread_detach(thread) }
}
