import Hummingbird
import ServiceLifecycle
import NexusCore

/// The long-poll feed: everything a user should see, after a cursor.
struct SyncController {
    let feed: any FeedStore
    let services: AppServices
    static let pageLimit = 500

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("sync", use: sync)
    }

    private func present(_ event: SyncEvent) -> SyncEvent {
        var e = event
        e.conversation = e.conversation.map(services.present)
        return e
    }

    @Sendable func sync(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller.user
        let conversationId = try request.queryInt("conversation")
        if let conversationId { _ = try await services.members(of: conversationId, viewer: me.id) }

        if let last = try request.queryInt("last") {
            guard (0...Int64(Limits.maxPageSize)).contains(last) else {
                throw APIError.badRequest("last must be between 0 and \(Limits.maxPageSize).", code: "invalid_query")
            }
            let (events, head) = try await feed.lastMessageEvents(viewer: me.id, conversationId: conversationId, count: Int(last))
            return try jsonResponse(SyncResponse(events: events.map(present), cursor: head))
        }

        let after = try request.queryInt("after") ?? 0
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
        let deadline = ContinuousClock.now + .seconds(min(wait, services.limits.syncWaitCapSeconds))
        let started = services.clock()
        while true {
            let seen = services.notifier.version(of: me.id)
            let events = try await feed.events(viewer: me.id, after: after, conversationId: conversationId, limit: Self.pageLimit)
            let remaining = deadline - ContinuousClock.now
            // Typing is news too: a poll answers early when someone starts typing.
            let (typing, freshTyping) = services.typing.active(
                for: me.id, conversationId: conversationId, now: services.clock(), since: started)
            if !events.isEmpty || freshTyping || remaining <= .zero || services.notifier.isShutDown {
                return try jsonResponse(SyncResponse(
                    events: events.map(present), cursor: events.last?.id ?? after, typing: typing.isEmpty ? nil : typing))
            }
            let notifier = services.notifier
            await withGracefulShutdownHandler {
                await notifier.wait(user: me.id, seen: seen, timeout: remaining)
            } onGracefulShutdown: {
                notifier.shutdown()
            }
        }
    }
}
