import LibC
import NexusCore

/// `chat`'s network work, one job after another on a thread of its own, so the screen
/// never waits on the server: reads through the offline-first `Reading` (server, else the
/// cache), deliveries through the same `Sending` as `send`, receipts and typing.
final class ChatWorker: @unchecked Sendable {
    let model: ChatModel
    let context: CommandContext
    let reading: Reading
    let actions: ConversationActions
    let sending: Sending
    let api: NexusAPI
    private var jobs: [() -> Void] = []
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let ready: UnsafeMutablePointer<pthread_cond_t>

    init(model: ChatModel, context: CommandContext) throws(CLIError) {
        self.model = model
        self.context = context
        api = try context.api()
        reading = Reading(profile: context.profile, api: api, me: model.me)
        actions = ConversationActions(profile: context.profile, api: api, me: model.me)
        var sending = try OutboxSending.sending(context)
        // The screen shows progress itself; nothing may write to the terminal behind it.
        sending.onProgress = nil
        self.sending = sending
        mutex = .allocate(capacity: 1)
        ready = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(ready, nil)
        startThread { [self] in run() }
    }

    func async(_ job: @escaping () -> Void) {
        pthread_mutex_lock(mutex)
        jobs.append(job)
        pthread_cond_signal(ready)
        pthread_mutex_unlock(mutex)
    }

    private func run() {
        while true {
            pthread_mutex_lock(mutex)
            while jobs.isEmpty { pthread_cond_wait(ready, mutex) }
            let job = jobs.removeFirst()
            pthread_mutex_unlock(mutex)
            job()
        }
    }

    /// The list again, as `convos` reads it.
    func refreshList() {
        async { [self] in
            guard let fetched = try? reading.conversations() else { return }
            model.change { m in
                m.list = ConvosCommand.filter(fetched.value.conversations, me: m.me, people: [:], search: nil, unreadOnly: false)
                for u in fetched.value.users {
                    // The feed's presence is newer than a cached list's.
                    let known = m.people[u.id]
                    m.people[u.id] = u
                    if fetched.offlineReason != nil, let known { m.people[u.id]?.online = known.online }
                }
                if fetched.offlineReason != nil, m.offlineServer == nil { m.offlineServer = Self.server(api) }
            }
        }
    }

    /// Opens a conversation: its members and receipts, its newest page, mine still queued
    /// for it; then marks it read, as opening it does in the product.
    func open(_ id: Int64) {
        async { [self] in
            let conversation = try? reading.conversation(id).value
            let page = try? reading.page(id, before: nil, limit: 50).value
            let queued = QueuedLines.entries(id, except: [], context)
            model.change { m in
                guard m.openId == id else { return }
                if let conversation { m.learn(conversation) }
                m.messages = []
                m.prepend(page?.messages ?? [], hasMore: page?.hasMore ?? false)
                let shown = Set(m.messages.map(\.localId))
                m.pending = queued.filter { !shown.contains($0.localId) }.map {
                    ChatModel.Pending(localId: $0.localId, text: $0.text, queuedAt: $0.queuedAt, failure: $0.status == .failed ? ($0.lastError ?? "failed") : nil)
                }
            }
            markRead(id)
        }
    }

    /// Marks the open conversation read (what is on screen has been seen).
    func markRead(_ id: Int64) {
        async { [self] in
            guard let read = try? actions.markRead(id).value else { return }
            model.change { m in m.learn(read) }
            refreshList()
        }
    }

    /// The next older page of the open conversation.
    func older() {
        let (id, first) = model.locked { m -> (Int64?, Int64?) in
            guard !m.loadingOlder, m.hasMore else { return (nil, nil) }
            m.loadingOlder = true
            return (m.openId, m.messages.first?.seq)
        }
        guard let id, let first else { return }
        async { [self] in
            let page = try? reading.page(id, before: .seq(first), limit: 50).value
            model.change { m in
                guard m.openId == id else { return }
                if let page { m.prepend(page.messages, hasMore: page.hasMore) } else { m.loadingOlder = false }
            }
        }
    }

    /// Delivers what is queued, `own` first among them; what the server took replaces
    /// its "sending" line, what it refused says why.
    func deliver(_ own: [OutboxEntry]) {
        async { [self] in
            let scope: Sending.Scope = own.isEmpty ? .everything : .conversationsOf(Set(own.map(\.localId)))
            delivering(scope, own: own, lock: own.isEmpty ? .skipIfBusy : .wait(onBusy: nil))
        }
    }

    /// Mine that failed, back in the queue and sent, by the core call `retry` makes; then
    /// the whole queue goes, in order, as after `retry`, so each keeps its place.
    func retry(_ localIds: [String]) {
        async { [self] in
            let chosen: [OutboxEntry]
            do throws(Sending.RetryError) {
                chosen = try sending.retry(localIds)
            } catch {
                let why: String
                switch error {
                case .notInOutbox: why = "not retried: it is no longer in the outbox"
                case .notFailed(_, let status): why = "not retried: it is \(status.rawValue) now"
                case .store(let e): why = "not retried: \(e)"
                }
                model.change { m in for i in m.pending.indices where localIds.contains(m.pending[i].localId) { m.pending[i].failure = why } }
                return
            }
            let ids = Set(chosen.map(\.localId))
            model.change { m in for i in m.pending.indices where ids.contains(m.pending[i].localId) { m.pending[i].failure = nil } }
            delivering(.everything, own: chosen, lock: .wait(onBusy: nil))
        }
    }

    /// On the worker's thread.
    private func delivering(_ scope: Sending.Scope, own: [OutboxEntry], lock: Sending.LockPolicy) {
        let outcome: Sending.Outcome
        do {
            outcome = try sending.deliver(scope, own: own, ignoreBackoff: true, lock: lock)
        } catch {
            model.change { m in for i in m.pending.indices where own.contains(where: { $0.localId == m.pending[i].localId }) { m.pending[i].failure = "\(error)" } }
            return
        }
        let report = outcome.report
        model.change { m in
            for (_, message) in report.sent { m.take(message) }
            for f in report.failed {
                if let i = m.pending.firstIndex(where: { $0.localId == f.localId }) { m.pending[i].failure = f.lastError ?? "refused" }
            }
            if report.stillQueued > 0, m.offlineServer == nil { m.offlineServer = Self.server(api) }
        }
    }

    func typing(_ id: Int64) {
        async { [self] in _ = try? api.typing(conversationId: id) }
    }

    /// The server the banner names.
    static func server(_ api: NexusAPI) -> String { "\(api.address)" }
}
