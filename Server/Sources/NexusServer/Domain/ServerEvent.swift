import NexusWire
import Synchronization

/// What one commit made durable: the one description every effect after a commit follows.
struct Commit: Sendable, Equatable {
    enum Kind: String, Sendable, CaseIterable {
        case message, edit, delete, reaction, membership, rename, receipt, conversation
        /// The account's own mute of the conversation: seen by that account's devices only.
        case mute
    }

    struct Change: Sendable, Equatable {
        var conversationId: Int64
        var kind: Kind
        /// The seq of the message or membership line the change is or changes, or the one
        /// a receipt's watermark moved to; nil for a new conversation or a mute.
        var seq: Int64?
    }

    var changes: [Change]
    /// Whose long polls look again: the members concerned, before and after the change.
    var wake: [Int64]
    /// Conversations whose members changed: what caches their members drops them.
    var membersChanged: [Int64] = []

    var conversations: Set<Int64> { Set(changes.map(\.conversationId)) }
}

/// What happened that something beyond the request must follow. Use cases publish it once
/// the change is durable (or, for what is not stored, once it is in memory), before they
/// answer; `ServerEvents`' subscribers do the rest.
enum ServerEvent: Sendable, Equatable {
    case committed(Commit)
    /// Someone is typing, shown to `others` for a while; not stored. `local`: said here,
    /// not told by another replica.
    case typing(Typing, others: [Int64], local: Bool)
    /// Nothing stored here changed, but these users' polls must look again.
    case wake(users: [Int64], because: WakeCause)
    /// Another replica changed these conversations' members.
    case membersChangedElsewhere([Int64])

    enum WakeCause: Sendable, Equatable {
        /// A contact came or went.
        case presence
        /// A credential the user's poll holds stopped working; the poll ends.
        case revocation
        /// Another replica committed to a feed these users read.
        case replica
    }
}

protocol ServerEventSubscriber: Sendable {
    func handle(_ event: ServerEvent) async
}

/// The one place that what follows a commit is decided: every use case publishes here, and
/// the subscribers (AppServices' `standardSubscribers`, in order) wake feeds, hooks,
/// caches and the other replicas.
final class ServerEvents: Sendable {
    private let subscribers: Mutex<[any ServerEventSubscriber]>

    init(_ subscribers: [any ServerEventSubscriber] = []) {
        self.subscribers = Mutex(subscribers)
    }

    /// Tests add an observer after the standard ones.
    func subscribe(_ subscriber: any ServerEventSubscriber) {
        subscribers.withLock { $0.append(subscriber) }
    }

    func publish(_ event: ServerEvent) async {
        for subscriber in subscribers.withLock({ $0 }) { await subscriber.handle(event) }
    }
}
