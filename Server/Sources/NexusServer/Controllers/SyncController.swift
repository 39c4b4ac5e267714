import Foundation
import Hummingbird
import NIOCore
import NexusWire

/// The long-poll feed: everything a user should see, after a cursor.
struct SyncController {
    let feed: any FeedStore
    let services: AppServices
    /// Polls woken together at one cursor share one read and one encoded answer.
    let reads = SharedFeedReads()
    let answered = AnswerTimes()
    static let pageLimit = 500

    /// The event as the viewer gets it, with its check made from the stored event (before
    /// presence is added to its conversation, which changes over time).
    private func present(_ event: SyncEvent) -> SyncEvent {
        var e = event
        e.check = Self.check(of: event)
        e.conversation = e.conversation.map(services.present)
        return e
    }

    /// A change's check, the store made with the message it no longer carries.
    private static func check(of event: SyncEvent) -> String { event.check ?? FeedCheck.of(event) }

    /// Refuses a cursor that this database's history doesn't hold: past its head, or
    /// naming an event that isn't the one the cursor was made at (a restored or reset
    /// database reuses ids). Without `check`, a client of before checks, nothing is verified.
    private func verify(after: Int64, check: String?, conversationId: Int64?) async throws {
        guard let check, after > 0 else { return }
        let found = try await feed.eventToCheck(id: after, conversationId: conversationId)
        guard let found, Self.check(of: found) == check else {
            throw APIError(
                status: .gone, code: "unknown_cursor",
                message: "This cursor is not from this server's history (its database was restored or reset); "
                    + "start again with last=N.")
        }
    }

    @Sendable func sync(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller
        let conversationId = try request.queryInt("conversation", in: RequestNumbers.id)
        // Everything that reads or waits runs apart (see `apart`): a parked poll's connection
        // then keeps none of it (10,000 parked polls held 519 MiB with it, 360 without), and
        // a poll starts one task where it started three.
        return try await Self.apart { [self] in try await serve(request, context: context, caller: caller, conversationId: conversationId) }
    }

    private func serve(_ request: Request, context: AppRequestContext, caller: Caller, conversationId: Int64?) async throws -> Response {
        let me = caller.user
        // Taken before the access check: a removal after the check moves it, so the wait
        // below returns at once to the check after it, instead of holding a poll whose feed
        // no longer holds the conversation.
        var seen = services.notifier.version(of: me.id)
        if let conversationId {
            _ = try await services.members(of: conversationId, caller: caller, for: .read)
        } else {
            try caller.access.check(.read)
            // The whole feed holds every conversation: a token limited to some reads one at a time.
            if let allowed = caller.access.conversations {
                throw APIError(
                    status: .forbidden, code: "insufficient_scope",
                    message: "This token is limited to conversations \(allowed.sorted().map(String.init).joined(separator: ", ")); sync one of them with ?conversation=ID.")
            }
        }

        // `presence=DIGEST` (empty at first): also report contacts' presence when it moved.
        let askedPresence = request.uri.queryParameters["presence"].map(String.init)
        // `mutes=DIGEST` (empty at first): also report the viewer's mutes when they changed.
        let askedMutes = request.uri.queryParameters["mutes"].map(String.init)
        if let last = try request.queryInt("last", in: 0...Int64(Limits.maxPageSize)) {
            return try await lastPage(
                viewer: me.id, conversationId: conversationId, count: Int(last), askedPresence: askedPresence, askedMutes: askedMutes)
        }

        let after = try request.queryInt("after", in: RequestNumbers.position) ?? 0
        let check = request.uri.queryParameters["check"].map(String.init)
        if let check, !FeedCheck.isWellFormed(check) {
            throw APIError.badRequest("check must be the cursorCheck or an event's check, as the server gave it.", code: "invalid_query")
        }
        try await verify(after: after, check: check, conversationId: conversationId)
        let wait = try request.queryInt("wait", in: 0...Int64(Limits.maxSyncWaitSeconds)) ?? 0
        if wait > 0 {
            guard services.polls.acquire(me.id) else {
                throw APIError.tooManyRequests(
                    "too_many_polls",
                    "You already have \(services.limits.pollsPerUser) long polls open; close one or poll without wait.",
                    retryAfter: 5)
            }
        }
        // Once parked, the poll's slot and hold are the parked poll's to end.
        var parked = false
        defer { if wait > 0 && !parked { services.polls.release(me.id) } }
        let hold = try await holdPresence(request, context: context, user: me.id, wait: wait)
        defer { if !parked { hold?.end() } }
        let credential = services.credentials.hold(
            hash: caller.tokenHash, isAccessToken: caller.access.scope != nil, viewer: me.id, expiresAt: caller.expiresAt)
        defer { if !parked { services.credentials.release(credential) } }
        let end: @Sendable () -> Void = { [services, viewer = me.id] in
            if wait > 0 { services.polls.release(viewer) }
            hold?.end()
            services.credentials.release(credential)
        }
        let contacts: [User] = askedPresence == nil ? [] : try await self.contacts(of: me.id, conversationId: conversationId)
        let now = services.clock()
        let poll = Poll(
            viewer: me.id, conversationId: conversationId, after: after, check: check, askedPresence: askedPresence,
            contacts: contacts, askedMutes: askedMutes, deadline: deadline(waiting: wait, until: caller.expiresAt),
            started: answered.time(.init(viewer: me.id, conversationId: conversationId, cursor: after), now: now) ?? now,
            credential: credential)
        let loop = ServingLoops.resumable(context.channel?.eventLoop)
        // Hummingbird closes its side once it has answered a request asking to close, so
        // such a poll cannot be answered later: it waits in its task.
        let parkable = loop != nil && request.headers[.connection] != "close"
        // What tests outside the process wait on too (at --log-level debug), instead of sleeping.
        let held = {
            HeldPolls.began(caller.tokenHash)
            context.logger.debug("long poll held", metadata: ["user": "\(me.id)"])
        }
        while true {
            let page = try await read(poll, version: seen)
            let mutes = try await mutes(for: poll)
            try await services.checkStillValid(credential)
            switch reply(poll, page: page, mutes: mutes) {
            case .page(let body): return Self.answer(body)
            case .own(let response): return try jsonResponse(response)
            case nil: break
            }
            if parkable, let loop, let standIn = park(poll, seen: seen, loop: loop, end: end) {
                parked = true
                held()
                return standIn
            }
            // A graceful shutdown wakes it (FeedNotifier.shutDownWithServer).
            await services.notifier.wait(user: me.id, seen: seen, timeout: poll.deadline - ContinuousClock.now, on: loop, waiting: held)
            seen = services.notifier.version(of: me.id)
            // Removed (or left) while this poll waited: the non-member's 404 now.
            if let conversationId {
                _ = try await services.members(of: conversationId, viewer: me.id)
            }
        }
    }

    /// What a waiting poll asked, and until when.
    struct Poll: Sendable {
        let viewer: Int64
        let conversationId: Int64?
        let after: Int64
        let check: String?
        /// `presence=DIGEST`, and the contacts whose presence it covers.
        let askedPresence: String?
        let contacts: [User]
        /// `mutes=DIGEST`: the viewer's mutes are reported when their digest differs.
        let askedMutes: String?
        let deadline: ContinuousClock.Instant
        /// Typing announced since then is news: when the answer that gave this poll its cursor
        /// was made, else when the poll came.
        let started: Timestamp
        /// The token it came with, checked before each answer.
        let credential: PollCredential

        var key: SharedFeedReads.Key {
            .init(viewer: viewer, after: after, conversationId: conversationId, limit: SyncController.pageLimit)
        }
    }

    /// Until the wait runs out, or the token expires (a moment after, so that the check
    /// then finds it expired by the services' clock).
    private func deadline(waiting wait: Int64, until expiresAt: Timestamp?) -> ContinuousClock.Instant {
        let waited = ContinuousClock.now + .seconds(min(wait, services.limits.syncWaitCapSeconds))
        guard let expiresAt else { return waited }
        return min(waited, ContinuousClock.now + .milliseconds(expiresAt.milliseconds - services.clock().milliseconds + 50))
    }

    /// The poll's page, read once for the polls that ask the same at the same time.
    func read(_ poll: Poll, version: UInt64) async throws -> SharedFeedReads.Page {
        try await reads.page(poll.key, version: version) { [self] in
            try await self.page(viewer: poll.viewer, after: poll.after, conversationId: poll.conversationId)
        }
    }

    /// What a poll answers: the page's shared answer, or one of its own (typing, presence,
    /// nothing new). Nil while it has nothing to say and time to wait.
    enum Reply {
        case page(ByteBuffer)
        case own(SyncResponse)
    }

    /// The viewer's mutes and their digest, read when the poll asked for them.
    func mutes(for poll: Poll) async throws -> MuteSnapshot? {
        guard poll.askedMutes != nil else { return nil }
        return try await muteSnapshot(of: poll.viewer)
    }

    private func muteSnapshot(of viewer: Int64) async throws -> MuteSnapshot {
        let mutes = try await services.stores.mutes.mutes(of: viewer, now: services.clock())
        return MuteSnapshot(mutes: mutes, digest: Mute.digest(of: mutes))
    }

    struct MuteSnapshot: Sendable {
        var mutes: [Mute]
        var digest: String
    }

    func reply(_ poll: Poll, page: SharedFeedReads.Page, mutes: MuteSnapshot?) -> Reply? {
        let events = page.events
        let now = services.clock()
        // Typing is news too: a poll answers early when someone starts typing.
        let (typing, freshTyping) = services.typing.active(
            for: poll.viewer, conversationId: poll.conversationId, now: now, since: poll.started)
        let snapshot = poll.askedPresence.map { _ in services.presenceSnapshot(of: poll.contacts) }
        let presenceMoved = snapshot.map { $0.digest != poll.askedPresence } ?? false
        let mutesMoved = mutes.map { $0.digest != poll.askedMutes } ?? false
        let timedOut = poll.deadline <= ContinuousClock.now
        guard !events.isEmpty || freshTyping || presenceMoved || mutesMoved || timedOut || services.notifier.isShutDown else { return nil }
        answered.note(.init(viewer: poll.viewer, conversationId: poll.conversationId, cursor: events.last?.id ?? poll.after), at: now)
        if let body = page.body, typing.isEmpty, snapshot == nil, mutes == nil { return .page(body) }
        return .own(SyncResponse(
            events: events, cursor: events.last?.id ?? poll.after,
            cursorCheck: events.isEmpty ? (poll.after > 0 ? poll.check : nil) : events.last?.check,
            typing: typing.isEmpty ? nil : typing,
            presence: presenceMoved ? snapshot?.states : nil, presenceDigest: snapshot?.digest,
            mutes: mutesMoved ? mutes?.mutes : nil, mutesDigest: mutes?.digest))
    }

    /// The newest `count` message events and the feed's head (`last=N`).
    private func lastPage(
        viewer: Int64, conversationId: Int64?, count: Int, askedPresence: String?, askedMutes: String?
    ) async throws -> Response {
        // It carries no typing: what is announced from now on is news to the next poll.
        let at = services.clock()
        let (events, head) = try await feed.lastMessageEvents(viewer: viewer, conversationId: conversationId, count: count)
        let headEvent = events.last?.id == head ? events.last : try await feed.eventToCheck(id: head, conversationId: conversationId)
        var response = SyncResponse(events: events.map(present), cursor: head, cursorCheck: headEvent.map(Self.check(of:)))
        answered.note(.init(viewer: viewer, conversationId: conversationId, cursor: head), at: at)
        if let askedPresence {
            let snapshot = services.presenceSnapshot(of: try await contacts(of: viewer, conversationId: conversationId))
            if snapshot.digest != askedPresence { response.presence = snapshot.states }
            response.presenceDigest = snapshot.digest
        }
        if let askedMutes {
            let snapshot = try await muteSnapshot(of: viewer)
            response.mutesDigest = snapshot.digest
            if snapshot.digest != askedMutes { response.mutes = snapshot.mutes }
        }
        return try jsonResponse(response)
    }

    /// Runs `body` in a short task of its own. A task keeps the deepest async stack it ever
    /// had until it ends (Swift's task allocator keeps its slabs for reuse), and a
    /// connection's task lives as long as its connection: so a poll's work runs apart, and
    /// a connection keeps only Hummingbird's frames (~50 KiB a held poll before).
    private static func apart<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task(operation: body).value
    }
}

extension SyncController {
    /// A page of the viewer's feed as the viewer gets it, with the answer a plain poll
    /// gives when it holds events: the bytes `jsonResponse` would write for it.
    fileprivate func page(viewer: Int64, after: Int64, conversationId: Int64?) async throws -> SharedFeedReads.Page {
        var events = try await feed.events(viewer: viewer, after: after, conversationId: conversationId, limit: Self.pageLimit)
            .map(present)
        var body = try Self.encoded(events)
        // Past the byte bound, the longest prefix under it (one event at least): the rest
        // comes with the next poll, at once. Only large pages pay for the search.
        if let full = body, full.readableBytes > services.limits.maxSyncPageBytes, events.count > 1 {
            var (fits, over) = (1, events.count)
            while over - fits > 1 {
                let mid = (fits + over) / 2
                if try Self.encoded(Array(events.prefix(mid)))!.readableBytes <= services.limits.maxSyncPageBytes { fits = mid } else { over = mid }
            }
            events = Array(events.prefix(fits))
            body = try Self.encoded(events)
        }
        return .init(events: events, body: body)
    }

    /// What a plain poll answers with `events`; nil for none.
    private static func encoded(_ events: [SyncEvent]) throws -> ByteBuffer? {
        guard let last = events.last else { return nil }
        let response = SyncResponse(events: events, cursor: last.id, cursorCheck: last.check)
        return try response.jsonBytes().map { ByteBuffer(bytes: $0) } ?? jsonBody(response)
    }

    /// A shared answer: the buffer is copied on write, so every poll sends the same bytes.
    fileprivate static func answer(_ body: ByteBuffer) -> Response {
        Response(status: .ok, headers: jsonHeaders(length: body.readableBytes), body: .init(byteBuffer: body))
    }
}
