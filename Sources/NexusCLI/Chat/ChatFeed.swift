import NexusCore

/// `chat`'s side of the feed: the same FeedFollower as `tail -f`, on a thread of its own,
/// with a position held in memory only, so it takes nothing from a `tail -f`, another
/// `chat` or a `queue flush` of the profile. What arrives goes into the model.
final class ChatFeed: FeedConsumer, @unchecked Sendable {
    let model: ChatModel
    let worker: ChatWorker
    private let reporter: ReceiptReporter
    private var listMoved = false
    private var readOpen = false
    /// `--notify`: a notice for a message from someone else in a conversation not on screen.
    var notifier: Notifier?

    init(model: ChatModel, worker: ChatWorker, api: NexusAPI) {
        self.model = model
        self.worker = worker
        self.reporter = ReceiptReporter(api: api, me: model.me)
    }

    /// Follows until the process ends; a lasting error (a revoked token) ends it by `failed`.
    func start(api: NexusAPI, cache: FeedCache, failed: @escaping (FeedError) -> Void) {
        var options = FeedFollower.Options(conversationId: nil, lines: 0, startFromNewest: true, follow: true)
        options.presence = true
        options.mutes = true
        let follower = FeedFollower(source: api, position: nil, options: options, consumer: self)
        follower.cache = cache
        startThread {
            do throws(FeedError) { try follower.run(offline: false) } catch { failed(error) }
        }
    }

    func keepFollowing() -> Bool { !model.locked { $0.stopping } }

    func mutes(_ mutes: [Mute]) {
        notifier?.follow(mutes)
        model.change { $0.mutes = Mute.byConversation(mutes) }
    }

    func begin(_ batch: SyncResponse, live: Bool) {
        notifier?.flush()
        model.change { m in
            for c in batch.events.compactMap(\.conversation) { m.learn(c) }
            _ = m.typing.take(batch)
        }
    }

    func nextExpiry() -> Timestamp? { [model.locked { $0.typing.nextExpiry }, notifier?.nextDue].compactMap { $0 }.min() }

    func prepare(_ event: SyncEvent, live: Bool) {}

    func write(_ event: SyncEvent, live: Bool) {
        model.change { m in
            listMoved = true
            if let change = event.change {
                m.apply(change, in: event.conversationId)
            } else if let message = event.message, event.type == .message {
                m.take(message)
                if message.conversationId == m.openId, message.senderId != m.me { readOpen = true }
                // The conversation on screen is being read: it needs no notice.
                if live, message.conversationId != m.openId, let notifier {
                    let row = m.list.first { $0.id == message.conversationId }
                    notifier.take(
                        message, sender: m.people[message.senderId]?.shownName ?? "user \(message.senderId)",
                        group: row?.kind == .group ? row?.title(viewer: m.me, users: m.people) : nil)
                }
            } else if let r = event.receipt, event.type == .receipt {
                m.book.apply(r, in: event.conversationId)
            }
        }
    }

    func end(_ batch: SyncResponse, live: Bool) {
        // As `tail` does: what reached this device counts as delivered; what came into the
        // conversation on screen, as read.
        reporter.stored(batch.events.compactMap { $0.type == .message && $0.change == nil ? $0.message : nil })
        if readOpen, let id = model.locked({ $0.openId }) { worker.markRead(id) }
        readOpen = false
        if listMoved { worker.refreshList() }
        listMoved = false
    }

    func presence(_ states: [PresenceState], initial: Bool) {
        model.change { m in m.presence(states) }
    }

    func notice(_ notice: FeedNotice) {
        switch notice {
        case .startedOffline(let server, _):
            model.change { $0.offlineServer = server }
        case .retrying:
            model.change { m in m.offlineServer = m.offlineServer ?? ChatWorker.server(worker.api) }
        case .reconnected:
            model.change { $0.offlineServer = nil }
            // The connection is back: what was written meanwhile goes, in order.
            worker.deliver([])
            worker.refreshList()
            if let id = model.locked({ $0.openId }) { worker.open(id) }
        case .historyChanged, .damagedPositionReplaced:
            worker.refreshList()
        case .resuming, .cacheProblem:
            break
        }
    }
}
