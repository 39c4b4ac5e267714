import LibC

/// What a FeedFollower hands out. It never prints: the consumer (the CLI's printer, or a
/// test) writes, and the follower saves the position right after each event is written.
public protocol FeedConsumer: AnyObject {
    /// A batch arrived: learn its conversations, show who is typing. `live` is false for
    /// the backlog printed at the start, before the position was followed.
    func begin(_ batch: SyncResponse, live: Bool)
    /// Before `write`, outside the saved window: work that is done again if the process
    /// dies before the event's position is saved (the --exec hook).
    func prepare(_ event: SyncEvent, live: Bool)
    /// Writes the event out, flushed. Its position is saved as soon as this returns.
    func write(_ event: SyncEvent, live: Bool)
    /// After the batch's position is saved: work that may be lost to a kill (receipts).
    func end(_ batch: SyncResponse, live: Bool)
    /// At an offline start with no saved position: the newest cached messages, shown in
    /// place of the server's until it is back.
    func showCached(_ messages: [Message])
    func notice(_ notice: FeedNotice)
    /// Contacts whose presence changed (`initial`: everyone's state at the start), when
    /// the follower was asked to follow presence.
    func presence(_ states: [PresenceState], initial: Bool)
    /// The account's mutes in force, when they changed (asked with `Options.mutes`).
    func mutes(_ mutes: [Mute])
    /// Asked before each request; false ends `run` (tests; nexusctl runs until killed).
    func keepFollowing() -> Bool
    /// When what is shown changes by itself (someone's typing runs out): the next poll
    /// answers by then, so the consumer can take it off. Nil: nothing expires.
    func nextExpiry() -> Timestamp?
}

extension FeedConsumer {
    public func keepFollowing() -> Bool { true }
    public func showCached(_ messages: [Message]) {}
    public func presence(_ states: [PresenceState], initial: Bool) {}
    public func mutes(_ mutes: [Mute]) {}
    public func nextExpiry() -> Timestamp? { nil }
}

/// What a person should be told; the follower goes on after each.
public enum FeedNotice: Equatable {
    /// The server can't be reached at the start; `positionKnown` is false when the follower
    /// has no position yet and will start from the newest messages once it is back.
    case startedOffline(server: String, positionKnown: Bool)
    /// A request failed in a way that passes; retrying until the server is back.
    case retrying(APIError)
    case reconnected(server: String)
    /// Following from a saved position, after the message it names (nil: the position
    /// was saved by an older nexusctl, or after no message).
    case resuming(after: MessageReference?)
    /// The server doesn't know the position (its database was restored or reset): the
    /// follower starts again from its newest `lines` messages.
    case historyChanged(lines: Int)
    /// `-n` was given, so the damaged saved position is replaced rather than an error.
    case damagedPositionReplaced(StoreError)
    /// The local cache could not be read or written; the follow goes on.
    case cacheProblem(CacheProblem)
}

public enum FeedError: Error {
    case api(APIError)
    case store(StoreError)
}

/// `tail`'s use case: the newest messages, then, when following, every later event in
/// order, across restarts of either side, with a durable position.
public final class FeedFollower {
    public struct Options: Sendable {
        public var conversationId: Int64?
        /// How many of the newest messages to start with when there is no position.
        public var lines: Int
        /// `-n` given: start from the newest `lines` even when a position is saved.
        public var startFromNewest: Bool
        public var follow: Bool
        /// Also follow contacts' presence (`tail -f --presence`, `convos -f`).
        public var presence = false
        /// Also follow the account's mutes (`--notify`): the consumer hears of each change.
        public var mutes = false
        var waitSeconds = 25
        var firstBackoffMs: UInt32 = 200
        /// Capped so a follower is back within about 3 s of the network's return, however long it was gone.
        var maxBackoffMs: UInt32 = 2500

        public init(conversationId: Int64?, lines: Int, startFromNewest: Bool, follow: Bool) {
            self.conversationId = conversationId
            self.lines = lines
            self.startFromNewest = startFromNewest
            self.follow = follow
        }
    }

    let source: any FeedSource
    let position: FeedPosition?
    let options: Options
    let consumer: any FeedConsumer
    /// How the follower waits between retries; tests pass one that doesn't sleep.
    var sleep: (UInt32) -> Void = { usleep($0 * 1000) }
    /// Where the feed stands: after the last event handed out.
    public private(set) var cursor: FeedCursor?
    /// Where what arrives is kept; nil keeps nothing (tests).
    public var cache: FeedCache?
    /// The presence digest of the last answer ("" before the first), and who was online then.
    var presenceDigest: String?
    var knownPresence: [Int64: PresenceState]?
    /// The mutes digest of the last answer ("" before the first).
    var mutesDigest: String?
    var asks: FeedAsks { FeedAsks(presence: presenceDigest, mutes: mutesDigest) }

    /// `position` is required when following and ignored otherwise.
    public init(source: any FeedSource, position: FeedPosition?, options: Options, consumer: any FeedConsumer) {
        self.source = source
        self.position = options.follow ? position : nil
        self.options = options
        self.consumer = consumer
        self.presenceDigest = options.presence ? "" : nil
        self.mutesDigest = options.mutes ? "" : nil
    }

    /// Prints the start, then, when following, follows until the consumer says stop or a
    /// lasting error (a revoked token, a full disk) ends it. `offline`: the caller already
    /// knows the server can't be reached.
    public func run(offline startedOffline: Bool) throws(FeedError) {
        var offline = startedOffline
        if options.follow {
            TerminationGuard.install()
            cursor = try savedPosition()
            if cursor != nil { consumer.notice(.resuming(after: position?.lastMessage)) }
        }
        if cursor == nil && !offline {
            var recent: SyncResponse?
            do throws(APIError) {
                recent = try source.sync(
                    from: nil, last: options.lines, conversationId: options.conversationId, waitSeconds: 0, asking: asks)
            } catch {
                guard error.isNetwork else { throw .api(error) }
                offline = true
            }
            if let recent { try deliver(recent, live: false) }
        }
        if offline {
            consumer.notice(.startedOffline(server: source.serverName, positionKnown: cursor != nil))
            if cursor == nil, let cache {
                switch cache.newest(options.lines, conversationId: options.conversationId) {
                case .success(let messages): consumer.showCached(messages)
                case .failure(let problem): consumer.notice(.cacheProblem(problem))
                }
            }
        }
        guard options.follow else { return }
        if let cursor { try save(cursor, durable: true) }
        try follow(offline: offline)
    }

    private func savedPosition() throws(FeedError) -> FeedCursor? {
        guard let position else { return nil }
        do throws(StoreError) {
            let saved = try position.load()
            return options.startFromNewest ? nil : saved
        } catch {
            guard options.startFromNewest else { throw .store(error) }
            consumer.notice(.damagedPositionReplaced(error))
            return nil
        }
    }

    private func follow(offline startedOffline: Bool) throws(FeedError) {
        var offline = startedOffline
        var backoffMs = options.firstBackoffMs
        while consumer.keepFollowing() {
            let batch: SyncResponse
            do throws(APIError) {
                if let after = cursor {
                    // While offline, probe without waiting, so the reconnection is noticed at once.
                    batch = try source.sync(
                        from: after, last: nil, conversationId: options.conversationId, waitSeconds: offline ? 0 : waitSeconds(),
                        asking: asks)
                } else {
                    // No position yet (started offline, or the server's history changed):
                    // join after the newest messages, which are shown as news.
                    batch = try source.sync(
                        from: nil, last: options.lines, conversationId: options.conversationId, waitSeconds: 0, asking: asks)
                }
            } catch {
                if error.isUnknownCursor {
                    if offline { reconnected(&offline) }
                    consumer.notice(.historyChanged(lines: options.lines))
                    cursor = nil
                    continue
                }
                guard error.isTransient else { throw .api(error) }
                if !offline {
                    consumer.notice(.retrying(error))
                    offline = true
                }
                // A 429 names its wait; asking again sooner would only be refused again.
                let askedMs = UInt32(min(max(error.retryAfter ?? 0, 0), 300)) * 1000
                sleep(max(backoffMs, askedMs))
                backoffMs = min(backoffMs * 2, options.maxBackoffMs)
                continue
            }
            if offline { reconnected(&offline) }
            backoffMs = options.firstBackoffMs
            try deliver(batch, live: true)
        }
    }

    /// The long poll's wait, cut short to answer by the consumer's next expiry.
    private func waitSeconds() -> Int {
        guard let expiry = consumer.nextExpiry() else { return options.waitSeconds }
        let ms = expiry.milliseconds - Timestamp.now().milliseconds
        return Int(max(1, min(Int64(options.waitSeconds), (ms + 999) / 1000)))
    }

    private func reconnected(_ offline: inout Bool) {
        offline = false
        consumer.notice(.reconnected(server: source.serverName))
    }

    /// Hands out a batch event by event, saving the position after each one is written,
    /// so a kill repeats at most the line being written, and SIGINT/SIGTERM nothing.
    private func deliver(_ answer: SyncResponse, live: Bool) throws(FeedError) {
        var batch = answer
        if let cache {
            let problems: [CacheProblem]
            (batch, problems) = cache.keep(answer)
            for problem in problems { consumer.notice(.cacheProblem(problem)) }
        }
        // Before the events: a mute the answer carries holds for the messages beside it.
        takeMutes(batch)
        consumer.begin(batch, live: live)
        for (i, event) in batch.events.enumerated() {
            consumer.prepare(event, live: live)
            let after = FeedCursor(after: event)
            if event.type == .message, event.change == nil, let m = event.message { position?.lastMessage = m.reference }
            // The batch's last position goes to disk for good; the others need only survive a kill.
            let durable = i == batch.events.count - 1 && after == batch.position
            try TerminationGuard.held { () throws(FeedError) in
                consumer.write(event, live: live)
                try save(after, durable: durable)
            }
        }
        // The batch's cursor may lie past its last event (the head of a `last` answer).
        if cursor != batch.position { try save(batch.position, durable: true) }
        consumer.end(batch, live: live)
        takePresence(batch)
    }

    private func save(_ position: FeedCursor, durable: Bool) throws(FeedError) {
        cursor = position
        guard let file = self.position else { return }
        do throws(StoreError) {
            try file.save(position, durable: durable)
        } catch {
            throw .store(error)
        }
    }
}
