/// Group membership after creation (docs/protocol.md, "Group membership").
extension NexusAPI {
    public func members(of conversationId: Int64) throws(APIError) -> MembersResponse {
        try call("GET", "/v1/conversations/\(conversationId)/members")
    }

    public func changeMembership(_ entry: OutboxEntry) throws(APIError) -> MembershipResponse {
        let id = entry.conversationId ?? 0
        let request = MembershipRequest(localId: entry.localId)
        switch entry.kind {
        case .add:
            return try call("POST", "/v1/conversations/\(id)/members", body: MembershipRequest(localId: entry.localId, emails: entry.emails))
        case .remove:
            return try call("POST", "/v1/conversations/\(id)/members/remove", body: MembershipRequest(localId: entry.localId, emails: entry.emails))
        case .leave:
            return try call("POST", "/v1/conversations/\(id)/leave", body: request)
        case .rename:
            return try call("POST", "/v1/conversations/\(id)/rename", body: MembershipRequest(localId: entry.localId, name: entry.text))
        case .send, .edit, .delete, .react, .unreact, .mute, .unmute:
            throw .badResponse("\(entry.kind.rawValue) is no membership change")
        }
    }
}

/// The account's mute of a conversation (docs/notifications.md).
extension NexusAPI {
    public func setMute(_ entry: OutboxEntry) throws(APIError) -> MuteResponse {
        let path = "/v1/conversations/\(entry.conversationId ?? 0)/mute"
        guard entry.kind == .mute else { return try call("DELETE", path) }
        return try call("PUT", path, body: MuteRequest(until: entry.until, exceptMentions: entry.exceptMentions))
    }
}
