/// Sending: the use case behind `send`, `queue flush`, `retry` and the delivery after
/// other commands. Each calls `deliver` once; it takes the flush lock, reads the outbox,
/// resolves recipients, chooses by the one ordering rule, delivers and compacts.
///
/// The ordering rule lives in `order` and nowhere else: a conversation's messages leave
/// in the order they were queued, and a message that does not go now holds back every
/// later message of its conversation. A message queued to an email before its
/// conversation was known is resolved to the conversation's id before anything is chosen,
/// so it is ordered with sends by id and is never overtaken by them.
public struct Sending {
    public enum Scope: Sendable, Equatable {
        /// Every queued message: `queue flush`, `retry`, and the delivery after other commands.
        case everything
        /// These messages and every queued message of their conversations: `send`.
        case conversationsOf(Set<String>)
    }

    public enum LockPolicy {
        /// Wait while another delivery holds the lock; `onBusy` is told before the wait.
        case wait(onBusy: (() -> Void)?)
        /// Do nothing while another delivery holds the lock, and take no lock at all when
        /// nothing is due.
        case skipIfBusy
    }

    public struct Outcome {
        public var report = DeliveryReport()
        /// The outbox's damaged lines, as this run read them.
        public var damaged: [DamagedRecord] = []
        /// False when nothing ran: nothing was due, or (`skipIfBusy`) another delivery ran.
        public var ran = false
        /// The sent messages could not be kept in the local cache; they were still sent.
        public var cacheProblems: [CacheProblem] = []
    }

    public let profile: Profile
    /// Its `limit` caps the queue ("Offline queue is full").
    public var outbox: Outbox
    public let api: any SendingAPI
    public var now: () -> Timestamp = { .now() }
    public var maxItems = 500
    var maxBytes = 4 * 1024 * 1024
    /// Called after each batch with (messages done, messages to do).
    public var onProgress: ((Int, Int) -> Void)?
    /// Called while a file goes up with (the file, bytes the server has).
    public var onUpload: ((OutboxFile, Int64) -> Void)?
    /// How long a message is tried, from its first failed try, before it fails with
    /// "Retry limit exceeded" (the product documents' 24 hours of trying).
    public var retryLimitSeconds = Sending.defaultRetryLimitSeconds

    static let defaultRetryLimitSeconds: Int64 = 86_400

    /// The user id of the profile's saved session: messages queued by an older nexusctl,
    /// which recorded no author, are its (see OutboxAuthor).
    public var profileOwner: Int64?

    /// Takes the API already made, so that every check of the command line (the server
    /// addresses among them) has passed before anything is queued.
    public init(profile: Profile, api: any SendingAPI) {
        self.profile = profile
        self.outbox = Outbox(profile: profile)
        self.api = api
    }

    /// The backoff after `attempts` failed tries: 1 s, 2 s, 4 s … capped at 5 minutes.
    public static func backoff(afterAttempts attempts: Int) -> Int64 {
        min(300, Int64(1) << min(max(attempts - 1, 0), 9))
    }

    /// Records new messages durably, in order, for one conversation: by id, or by the other
    /// person's email while the id is not known.
    public func enqueue(_ texts: [String], conversationId: Int64?, to email: String?) throws(StoreError) -> [OutboxEntry] {
        try profile.ensureDirectory()
        return try outbox.enqueue(texts.map { (conversationId, conversationId == nil ? email?.lowercased() : nil, $0) })
    }

    /// Delivers the queued messages of `scope`, oldest first, by the ordering rule. Not
    /// due yet (unless `ignoreBackoff`) holds a message back.
    /// `own`: the messages of `scope` as their command queued them; one that another
    /// delivery sent, and a rewrite took out of the file, while this one waited for the lock
    /// is asked again, so the server's answer (the original) is its verdict.
    public func deliver(_ scope: Scope, own: [OutboxEntry] = [], ignoreBackoff: Bool, lock policy: LockPolicy) throws(StoreError) -> Outcome {
        let lock: FileLock
        switch policy {
        case .skipIfBusy:
            // A cheap look first: most commands find nothing due and take no lock.
            let start = now()
            let peek = try outbox.read()
            guard peek.entries.contains(where: { ignoreBackoff ? $0.status == .queued : $0.isDue(at: start) }),
                  let free = try FileLock.tryAcquire(outbox.flushLockPath)
            else { return Outcome(damaged: peek.damaged) }
            lock = free
        case .wait(let onBusy):
            try profile.ensureDirectory()
            if let free = try FileLock.tryAcquire(outbox.flushLockPath) {
                lock = free
            } else {
                onBusy?()
                lock = try FileLock.acquire(outbox.flushLockPath)
            }
        }
        defer { lock.unlock() }

        let contents = try outbox.read()
        var outcome = Outcome(damaged: contents.damaged, ran: true)
        let start = now()
        var entries = try ownEntries(contents.entries, &outcome.report)
        let mine: Set<String>? = if case .conversationsOf(let ids) = scope { ids } else { nil }
        // Only messages queued up to the last of ours can come before ours.
        let horizon = mine.flatMap { ids in entries.lastIndex { ids.contains($0.localId) } } ?? entries.count - 1
        try resolveRecipients(&entries, upTo: horizon, discardOnRefusal: mine ?? [], &outcome.report)

        var chosen: [OutboxEntry] = []
        if let mine {
            // Dropped (`queue drop`) while this one waited for the lock: never sent.
            outcome.report.dropped.formUnion(mine.filter { contents.dropped[$0] != nil })
            let keys = Set(entries.filter { mine.contains($0.localId) }.map(Self.key))
            for e in entries where keys.contains(Self.key(e)) {
                if mine.contains(e.localId) && e.status == .failed {
                    // Another delivery failed it while this one waited for the lock.
                    outcome.report.failed.append(e)
                } else if e.status == .queued || (mine.contains(e.localId) && e.status == .sent) {
                    // One of ours another delivery sent meanwhile is asked again: the server
                    // answers with the original, and the caller learns the message.
                    chosen.append(e)
                }
            }
            chosen += vanished(own, from: contents)
        } else {
            chosen = entries.filter { $0.status == .queued }
        }
        if outcome.report.stopReason != nil || outcome.report.authRefused {
            outcome.report.waiting += chosen
            return outcome
        }
        let (go, waiting) = Self.order(chosen, ignoreBackoff: ignoreBackoff, at: start)
        outcome.report.waiting += waiting
        let delivery = OutboxDelivery(
            outbox: outbox, api: api, now: now, maxItems: maxItems, maxBytes: maxBytes, onProgress: onProgress, onUpload: onUpload,
            retryLimitSeconds: retryLimitSeconds, progress: UploadProgress(profile: profile), discardOnRefusal: mine ?? [])
        try delivery.deliver(go, dueAt: start, &outcome.report)
        if !outcome.report.sent.isEmpty {
            // A delete takes the text off this device too: when sent records still carry it
            // (the send, earlier edits), they go now rather than at the next compaction.
            let deleted = Set(outcome.report.sent.compactMap { $0.entry.kind == .delete ? $0.entry.targetReference : nil })
            try outbox.compact(force: !deleted.isEmpty && entries.contains { Outbox.carriesText(of: deleted, $0) })
            do {
                // A change's answer is the message as it is now: it replaces the cached copy.
                let cache = MessageCache(profile: profile)
                try cache.insert(outcome.report.sent.filter { $0.entry.kind == .send }.map(\.message))
                let changed = outcome.report.sent.filter { $0.entry.kind != .send }.map(\.message)
                try cache.upsert(changed)
                if !changed.isEmpty { try ConversationCache(profile: profile).update(lastMessages: changed) }
            } catch { outcome.cacheProblems.append(.write(error)) }
        }
        return outcome
    }

    /// The messages of `own` gone from the file though never dropped: sent by another
    /// delivery, and compacted away since. As sent, they are asked again, never held back.
    func vanished(_ own: [OutboxEntry], from contents: Outbox.Contents) -> [OutboxEntry] {
        let present = Set(contents.entries.map(\.localId))
        let directs = profile.loadDirects()
        return own.filter { !present.contains($0.localId) && contents.dropped[$0.localId] == nil }.map { e in
            var e = e
            e.status = .sent
            if e.conversationId == nil, let to = e.to { e.conversationId = directs[to] }
            return e
        }.filter { $0.conversationId != nil }
    }

    /// What makes two messages one conversation: its id, or while that is not known, the
    /// other person's email.
    static func key(_ e: OutboxEntry) -> String {
        e.conversationId.map { "c\($0)" } ?? "to:\(e.to ?? "")"
    }

    /// The ordering rule. `entries` are in queue order; a message goes when every earlier
    /// message of its conversation goes too, and it is due (or `ignoreBackoff`). A message
    /// already sent is never held back, nor holds anything back.
    static func order(_ entries: [OutboxEntry], ignoreBackoff: Bool, at start: Timestamp) -> (go: [OutboxEntry], waiting: [OutboxEntry]) {
        var blocked = Set<String>()
        var go: [OutboxEntry] = []
        var waiting: [OutboxEntry] = []
        for e in entries {
            let key = key(e)
            if e.status == .queued && (blocked.contains(key) || (!ignoreBackoff && !e.isDue(at: start))) {
                blocked.insert(key)
                waiting.append(e)
            } else {
                go.append(e)
            }
        }
        return (go, waiting)
    }
}
