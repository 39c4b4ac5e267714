import Hummingbird
import NexusWire
import Synchronization

/// What the controllers share: the stores and the in-memory helpers around them.
///
/// A class: every controller, and every closure and parked poll that keeps one, holds it.
/// As a struct, each such copy was some 800 bytes and 40 retains (a quarter of
/// nexusd's time answering 10,000 held polls went to retain and release).
final class AppServices: Sendable {
    let stores: Stores
    /// How replicas keep their memory in step; nil for a single process (SQLite).
    var bus: (any ClusterBus)? { stores.bus }
    let notifier: FeedNotifier
    /// Webhooks' rate limits and the delivery worker's wake-up.
    let hooks: HookRuntime
    /// What follows a commit, in one place: use cases publish, subscribers act.
    let events: ServerEvents
    /// Tokens already checked. Replicas trust an entry for a short while only, and drop
    /// what another replica revokes when its note arrives (SessionCache).
    let sessions: SessionCache?
    /// Members by conversation. With replicas it asks the database every time: a member
    /// removed through another replica must be shut out at once, as a logout is.
    let membership: MembershipCache
    let presence = Presence()
    /// Presence held by live clients: this replica's polls, and everyone's leases.
    let holds = PresenceHolds()
    let board = PresenceBoard()
    let typing = TypingBoard()
    let passwords: Passwords
    let limits: ServerLimits
    let logins: LoginLimiter
    let polls: PollLimiter
    /// The tokens behind held long polls, which a revocation ends (CredentialWatch).
    let credentials: CredentialWatch
    /// The time, from a clock tests can set.
    let clock: @Sendable () -> Timestamp

    init(
        stores: Stores, passwords: Passwords, limits: ServerLimits = ServerLimits(),
        clock: @escaping @Sendable () -> Timestamp = { .now() }
    ) {
        self.stores = stores
        self.sessions = SessionCache(ttl: stores.bus == nil ? nil : SessionCache.replicaTTL)
        self.membership = MembershipCache(caching: stores.bus == nil)
        self.passwords = passwords
        self.limits = limits
        self.logins = LoginLimiter(limits)
        self.polls = PollLimiter(perUser: limits.pollsPerUser)
        self.credentials = CredentialWatch(
            keepMarksFor: .seconds(limits.syncWaitCapSeconds + 60), trust: stores.bus == nil ? nil : SessionCache.replicaTTL)
        self.clock = clock
        let notifier = FeedNotifier(), hooks = HookRuntime()
        self.notifier = notifier
        self.hooks = hooks
        self.events = ServerEvents(
            [MembershipCacheInvalidation(cache: membership), FeedWakeUp(notifier: notifier), HookWakeUp(hooks: hooks)]
                + (stores.bus.map { [ClusterRelay(bus: $0)] } ?? []))
    }

    /// A user as others should see them: with presence from memory over the stored last seen.
    /// Online: a one-off request in the last 60 s, or a live client's lease (a held `tail -f`).
    func present(_ user: User) -> User {
        var u = user
        let now = clock()
        if let seen = presence.lastSeen(user.id), seen > (u.lastSeenAt ?? Timestamp(milliseconds: 0)) { u.lastSeenAt = seen }
        let held = board.state(of: user.id)
        if let held, held.lastAt > (u.lastSeenAt ?? Timestamp(milliseconds: 0)) { u.lastSeenAt = min(held.lastAt, now) }
        // Online is a client kept open (a lease); a one-off command is only "last seen".
        u.online = held.map { $0.until > now } ?? false
        return u
    }

    func present(_ conversation: Conversation) -> Conversation {
        var c = conversation
        c.members = c.members.map(present)
        return c
    }

    /// Saves the last-seen times gathered in memory.
    func saveLastSeen() async {
        let times = presence.takeUnsaved()
        try? await stores.users.saveLastSeen(times)
    }

    /// The caller's user, token hash and access, from `Authorization: Bearer …`; 401
    /// otherwise (`token_expired` for a token past its expiry, so the client can say so).
    /// Called once a request, by AuthenticationMiddleware.
    func authenticate(_ request: Request) async throws -> Caller {
        // The scheme name is case-insensitive (RFC 9110).
        guard let header = Self.authorization(request.headers), header.count > 7, header.prefix(7).lowercased() == "bearer "
        else {
            throw APIError.unauthorized
        }
        let token = String(header.dropFirst(7)).trimmingSpaces()
        let isAccessToken = token.hasPrefix(Tokens.accessPrefix)
        let hash = Tokens.hash(token)
        let now = clock()
        let (cached, generation) = sessions?.lookup(hash: hash, now: now) ?? (nil, 0)
        var session: StoredSession
        if let cached {
            session = cached
        } else {
            let stored = isAccessToken ? try await stores.tokens.token(hash: hash) : try await stores.users.session(tokenHash: hash)
            guard let stored else { throw APIError.unauthorized }
            sessions?.remember(stored, forHash: hash, generation: generation)
            session = stored
        }
        if let expiresAt = expiry(of: session, isAccessToken: isAccessToken), now >= expiresAt {
            throw isAccessToken ? APIError.accessTokenExpired : APIError.tokenExpired
        }
        if isAccessToken {
            try await recordUse(&session, hash: hash, now: now)
        } else {
            try await slide(&session, hash: hash, now: now)
        }
        try await seen(session.user, request: request, at: now)
        let expiresAt = expiry(of: session, isAccessToken: isAccessToken)
        return Caller(user: session.user, tokenHash: hash, access: session.access,
                      sessionExpiresAt: isAccessToken ? nil : expiresAt, expiresAt: expiresAt)
    }

    /// When a token stops working: its stored expiry, and for a session no later than
    /// `--session-max-age` after its login. Worked out at every request, not stored: a
    /// limit set after a login (a restart with the option) then applies to that session too.
    func expiry(of session: StoredSession, isAccessToken: Bool) -> Timestamp? {
        guard !isAccessToken, let maxAge = limits.sessionMaxAgeSeconds else { return session.expiresAt }
        let limit = Timestamp(milliseconds: session.createdAt.milliseconds + maxAge * 1000)
        return session.expiresAt.map { min($0, limit) } ?? limit
    }

    /// The one Authorization header's value; nil when there is none or more than one (whose
    /// values HTTPFields' subscript joins with a comma, so no token matched either). That
    /// subscript builds the joined string for every request: 1 % of nexusd's CPU on sends.
    static func authorization(_ headers: HTTPFields) -> String? {
        var value: String?
        for field in headers where field.name == .authorization {
            guard value == nil else { return nil }
            value = field.value
        }
        return value
    }

    /// How stale a session's stored expiry, or a token's last use, may be before a
    /// request writes it. A write on every request would turn each read into a database
    /// write (on SQLite, a turn of its one writer); once an hour a token costs nothing
    /// measurable, and an hour is nothing against a 30-day window.
    static let refreshIntervalMs: Int64 = 3_600_000

    /// Slides a session's expiry to `--session-idle` from now (never past
    /// `--session-max-age` from its login), writing it at most once an hour.
    private func slide(_ session: inout StoredSession, hash: String, now: Timestamp) async throws {
        guard let expiresAt = session.expiresAt else { return }
        var target = now.milliseconds + limits.tokenTTLSeconds * 1000
        if let maxAge = limits.sessionMaxAgeSeconds { target = min(target, session.createdAt.milliseconds + maxAge * 1000) }
        // A tenth of a short window (tests, strict deployments), so it still slides.
        guard target - expiresAt.milliseconds >= min(Self.refreshIntervalMs, limits.tokenTTLSeconds * 100) else { return }
        try await stores.users.extendSession(tokenHash: hash, expiresAt: Timestamp(milliseconds: target))
        session.expiresAt = Timestamp(milliseconds: target)
        sessions?.update(session, forHash: hash)
    }

    /// Records an access token's use for `token list`, at most once an hour.
    private func recordUse(_ session: inout StoredSession, hash: String, now: Timestamp) async throws {
        if let last = session.lastUsedAt, now.milliseconds - last.milliseconds < Self.refreshIntervalMs { return }
        try await stores.tokens.recordUse(hash: hash, at: now)
        session.lastUsedAt = now
        sessions?.update(session, forHash: hash)
    }

    /// Deletes expired sessions; DatabaseService calls it now and then.
    func deleteExpiredSessions() async {
        _ = try? await stores.users.deleteExpiredSessions(now: clock())
    }

    /// The members of a conversation the caller belongs to, once the caller's token may
    /// do `permission` there: 404 first for a non-member (the same for every token), then
    /// 403 `insufficient_scope`.
    func members(of conversationId: Int64, caller: Caller, for permission: Permission) async throws -> [Int64] {
        let members = try await members(of: conversationId, viewer: caller.user.id)
        try caller.access.check(permission, conversation: conversationId)
        return members
    }

    /// The members of a conversation the caller belongs to; 404 when the caller is not
    /// a member or the conversation does not exist, so non-members learn nothing.
    func members(of conversationId: Int64, viewer: Int64) async throws -> [Int64] {
        let members = try await membership.members(of: conversationId, store: stores.conversations)
        guard members.contains(viewer) else { throw APIError.conversationNotFound }
        return members
    }
}

extension AppServices {
    /// What another replica said: wake the feeds that moved there, show its typing.
    func apply(_ note: ClusterNote) async {
        switch note {
        case .feed(let conversationIds):
            var users: [Int64] = []
            for id in conversationIds {
                guard let members = try? await membership.wakeMembers(of: id, store: stores.conversations) else { continue }
                users += members
            }
            await events.publish(.wake(users: users, because: .replica))
        case .typing(let typing):
            guard let members = try? await membership.members(of: typing.conversationId, store: stores.conversations) else { return }
            await show(typing, members: members, local: false)
        case .revoked(let hashes):
            await forget(hashes: hashes, local: false)
        case .members(let conversationIds):
            await events.publish(.membersChangedElsewhere(conversationIds))
        case .wake(let users):
            await events.publish(.wake(users: users, because: .replica))
        case .reconnected:
            sessions?.forgetAll()
            credentials.reconnected()
            membership.forgetAll()
            notifier.wakeEveryone()
        }
    }

    /// Someone is typing: kept in memory for the other members, and told to them.
    func show(_ typing: Typing, members: [Int64], local: Bool) async {
        let others = members.filter { $0 != typing.userId }
        self.typing.set(typing, for: others, at: clock())
        await events.publish(.typing(typing, others: others, local: local))
    }
}

/// Conversation members by conversation, for one process (SQLite): every membership
/// change goes through it and `forget`s its entry. Replicas don't cache (`caching` false)
/// what decides access: another replica's change would leave an entry stale. They only
/// keep what they read for a short while, to wake long polls when another replica's feed
/// note arrives (`wakeMembers`); a change there sends a note that drops the entry.
final class MembershipCache: Sendable {
    private struct Entry {
        let members: [Int64]
        let at: ContinuousClock.Instant
    }

    private struct State {
        var entries: [Int64: Entry] = [:]
        /// Bumped by `forget`: a read from before a change must not be cached after it.
        var generation = 0
    }

    private let state = Mutex(State())
    let caching: Bool
    /// How long a replica wakes by an entry, should a change's note be lost.
    static let wakeTTL: Duration = .seconds(2)

    init(caching: Bool = true) { self.caching = caching }

    func members(of conversationId: Int64, store: any ConversationStore) async throws -> [Int64] {
        try await members(of: conversationId, store: store, notOlderThan: caching ? nil : .zero)
    }

    /// Whom to wake for a feed that moved on another replica: a stale entry at worst wakes
    /// a removed member's poll, which then finds nothing it may read, or misses a new
    /// member's until the note of their joining arrives, as it does before the feed's.
    func wakeMembers(of conversationId: Int64, store: any ConversationStore) async throws -> [Int64] {
        try await members(of: conversationId, store: store, notOlderThan: caching ? nil : Self.wakeTTL)
    }

    private func members(of conversationId: Int64, store: any ConversationStore, notOlderThan age: Duration?) async throws -> [Int64] {
        let now = ContinuousClock.now
        let (cached, generation) = state.withLock { ($0.entries[conversationId], $0.generation) }
        if let cached, age.map({ cached.at > now - $0 }) ?? true { return cached.members }
        let members = try await store.memberIds(conversationId: conversationId)
        if !members.isEmpty {
            state.withLock {
                guard $0.generation == generation else { return }
                if $0.entries.count >= 100_000 { $0.entries.removeAll(keepingCapacity: true) }
                $0.entries[conversationId] = Entry(members: members, at: now)
            }
        }
        return members
    }

    /// After a membership change is committed, before it is answered.
    func forget(_ conversationId: Int64) {
        state.withLock {
            $0.entries[conversationId] = nil
            $0.generation += 1
        }
    }

    /// The cluster bus reconnected: changes' notes may have been missed.
    func forgetAll() {
        state.withLock {
            $0.entries.removeAll()
            $0.generation += 1
        }
    }
}
