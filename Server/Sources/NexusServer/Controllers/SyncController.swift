import Foundation
import Hummingbird
import NIOCore
import NexusCore

/// The long-poll feed: everything a user should see, after a cursor.
struct SyncController {
    let feed: any FeedStore
    let services: AppServices
    /// Polls woken together at one cursor share one read and one encoded answer.
    let reads = SharedFeedReads()
    static let pageLimit = 500

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("sync", use: sync)
    }

    /// The event as the viewer gets it, with its check made from the stored event (before
    /// presence is added to its conversation, which changes over time).
    private func present(_ event: SyncEvent) -> SyncEvent {
        var e = event
        e.check = FeedCheck.of(event)
        e.conversation = e.conversation.map(services.present)
        return e
    }

    /// Refuses a cursor that this database's history doesn't hold: past its head, or
    /// naming an event that isn't the one the cursor was made at (a restored or reset
    /// database reuses ids). Without `check`, a client of before checks, nothing is verified.
    private func verify(after: Int64, check: String?, conversationId: Int64?) async throws {
        guard let check, after > 0 else { return }
        let found = try await feed.eventToCheck(id: after, conversationId: conversationId)
        guard let found, FeedCheck.of(found) == check else {
            throw APIError(
                status: .gone, code: "unknown_cursor",
                message: "This cursor is not from this server's history (its database was restored or reset); "
                    + "start again with last=N.")
        }
    }

    @Sendable func sync(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller
        let me = caller.user
        let conversationId = try request.queryInt("conversation")
        // Taken before the access check: a removal after the check moves it, so the wait
        // below returns at once to the check after it, instead of holding a poll whose feed
        // no longer holds the conversation.
        var seen = services.notifier.version(of: me.id)
        if let conversationId {
            _ = try await Self.apart { [services] in try await services.members(of: conversationId, caller: caller, for: .read) }
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
        if let last = try request.queryInt("last") {
            guard (0...Int64(Limits.maxPageSize)).contains(last) else {
                throw APIError.badRequest("last must be between 0 and \(Limits.maxPageSize).", code: "invalid_query")
            }
            return try await Self.apart { [self] in
                try await lastPage(viewer: me.id, conversationId: conversationId, count: Int(last), askedPresence: askedPresence)
            }
        }

        let after = try request.queryInt("after") ?? 0
        let check = request.uri.queryParameters["check"].map(String.init)
        if let check, !FeedCheck.isWellFormed(check) {
            throw APIError.badRequest("check must be the cursorCheck or an event's check, as the server gave it.", code: "invalid_query")
        }
        try await Self.apart { [self] in try await verify(after: after, check: check, conversationId: conversationId) }
        let wait = try request.queryInt("wait") ?? 0
        guard (0...Int64(Limits.maxSyncWaitSeconds)).contains(wait) else {
            throw APIError.badRequest("wait must be between 0 and \(Limits.maxSyncWaitSeconds) seconds.", code: "invalid_query")
        }
        if wait > 0 {
            guard services.polls.acquire(me.id) else {
                throw APIError.tooManyRequests(
                    "too_many_polls",
                    "You already have \(services.limits.pollsPerUser) long polls open; close one or poll without wait.",
                    retryAfter: 5)
            }
        }
        defer { if wait > 0 { services.polls.release(me.id) } }
        let hold = try await Self.apart { [self] in try await holdPresence(request, context: context, user: me.id, wait: wait) }
        defer { hold?.end() }
        let contacts: [User] = askedPresence == nil ? [] : try await Self.apart { [self] in try await self.contacts(of: me.id, conversationId: conversationId) }
        let deadline = ContinuousClock.now + .seconds(min(wait, services.limits.syncWaitCapSeconds))
        let started = services.clock()
        let key = SharedFeedReads.Key(viewer: me.id, after: after, conversationId: conversationId, limit: Self.pageLimit)
        let loop = ServingLoops.resumable(context.channel?.eventLoop)
        while true {
            let page = try await reads.page(key, version: seen) { [self] in
                try await self.page(viewer: me.id, after: after, conversationId: conversationId)
            }
            let events = page.events
            let remaining = deadline - ContinuousClock.now
            // Typing is news too: a poll answers early when someone starts typing.
            let (typing, freshTyping) = services.typing.active(
                for: me.id, conversationId: conversationId, now: services.clock(), since: started)
            let snapshot = askedPresence.map { _ in services.presenceSnapshot(of: contacts) }
            let presenceMoved = snapshot.map { $0.digest != askedPresence } ?? false
            if !events.isEmpty || freshTyping || presenceMoved || remaining <= .zero || services.notifier.isShutDown {
                if let body = page.body, typing.isEmpty, snapshot == nil { return Self.answer(body) }
                return try jsonResponse(SyncResponse(
                    events: events, cursor: events.last?.id ?? after,
                    cursorCheck: events.isEmpty ? (after > 0 ? check : nil) : events.last?.check,
                    typing: typing.isEmpty ? nil : typing,
                    presence: presenceMoved ? snapshot?.states : nil, presenceDigest: snapshot?.digest))
            }
            // A graceful shutdown wakes it (FeedNotifier.shutDownWithServer).
            await services.notifier.wait(user: me.id, seen: seen, timeout: remaining, on: loop)
            seen = services.notifier.version(of: me.id)
            // i16-members: removed (or left) while this poll waited: the non-member's 404 now.
            if let conversationId {
                _ = try await Self.apart { [services] in try await services.members(of: conversationId, viewer: me.id) }
            }
        }
    }

    /// The newest `count` message events and the feed's head (`last=N`).
    private func lastPage(viewer: Int64, conversationId: Int64?, count: Int, askedPresence: String?) async throws -> Response {
        let (events, head) = try await feed.lastMessageEvents(viewer: viewer, conversationId: conversationId, count: count)
        let headEvent = events.last?.id == head ? events.last : try await feed.eventToCheck(id: head, conversationId: conversationId)
        var response = SyncResponse(events: events.map(present), cursor: head, cursorCheck: headEvent.map(FeedCheck.of))
        if let askedPresence {
            let snapshot = services.presenceSnapshot(of: try await contacts(of: viewer, conversationId: conversationId))
            if snapshot.digest != askedPresence { response.presence = snapshot.states }
            response.presenceDigest = snapshot.digest
        }
        return try jsonResponse(response)
    }

    /// Runs `body` in a short task of its own. A task keeps the deepest async stack it ever
    /// had until it ends (Swift's task allocator keeps its slabs for reuse), and a held
    /// poll's task lives as long as its connection: so the queries and their decoding run
    /// apart, and 10,000 held polls keep only their waiting frames (~50 KiB each before).
    private static func apart<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task(operation: body).value
    }
}

extension SyncController {
    /// A page of the viewer's feed as the viewer gets it, with the answer a plain poll
    /// gives when it holds events: the bytes `jsonResponse` would write for it.
    fileprivate func page(viewer: Int64, after: Int64, conversationId: Int64?) async throws -> SharedFeedReads.Page {
        let events = try await feed.events(viewer: viewer, after: after, conversationId: conversationId, limit: Self.pageLimit)
            .map(present)
        guard let last = events.last else { return .init(events: [], body: nil) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let data = try encoder.encode(SyncResponse(events: events, cursor: last.id, cursorCheck: last.check))
        return .init(events: events, body: ByteBuffer(bytes: data))
    }

    /// A shared answer: the buffer is copied on write, so every poll sends the same bytes.
    fileprivate static func answer(_ body: ByteBuffer) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes)],
            body: .init(byteBuffer: body))
    }
}
