import NexusWire

/// Muting and unmuting a conversation, for the caller's account (docs/notifications.md).
/// The caller's own polls are woken, so their devices hear of it at once (`mutes=`).
struct Muting {
    let services: AppServices
    /// Far enough ahead for any person's "until"; further is a mistake, not a wish.
    static let longestMs: Int64 = 10 * 366 * 24 * 3600 * 1000

    func mute(_ id: Int64, caller: Caller, body read: () async throws -> MuteRequest) async throws -> MuteResponse {
        _ = try await services.members(of: id, caller: caller, for: .all)
        let body = try await read()
        let now = services.clock()
        if let until = body.until {
            guard until.milliseconds > now.milliseconds else {
                throw APIError.badRequest("until is in the past; give a time to come, or none to mute until unmuted.", code: "invalid_body")
            }
            guard until.milliseconds - now.milliseconds <= Self.longestMs else {
                throw APIError.badRequest("until is more than ten years away; give none to mute until unmuted.", code: "invalid_body")
            }
        }
        let mute = Mute(conversationId: id, until: body.until, exceptMentions: body.exceptMentions ?? false)
        guard let changed = try await services.stores.mutes.mute(mute, userId: caller.user.id, now: now) else { throw APIError.conversationNotFound }
        if changed { await published(id, caller: caller) }
        return MuteResponse(conversationId: id, mute: mute, changed: changed)
    }

    func unmute(_ id: Int64, caller: Caller) async throws -> MuteResponse {
        _ = try await services.members(of: id, caller: caller, for: .all)
        guard let changed = try await services.stores.mutes.unmute(conversationId: id, userId: caller.user.id, now: services.clock())
        else { throw APIError.conversationNotFound }
        if changed { await published(id, caller: caller) }
        return MuteResponse(conversationId: id, mute: nil, changed: changed)
    }

    private func published(_ id: Int64, caller: Caller) async {
        await services.events.publish(.committed(Commit(changes: [.init(conversationId: id, kind: .mute, seq: nil)], wake: [caller.user.id])))
    }
}
