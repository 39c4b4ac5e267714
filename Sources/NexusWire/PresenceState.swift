/// A contact's presence as a long poll reports it (`GET /v1/sync?presence=…`): online
/// while they hold a live client (a `tail -f`) or made a request in the last 60 s.
public struct PresenceState: Codable, Hashable, Sendable {
    public var userId: Int64
    public var online: Bool
    public var lastSeenAt: Timestamp?

    public init(userId: Int64, online: Bool, lastSeenAt: Timestamp?) {
        self.userId = userId
        self.online = online
        self.lastSeenAt = lastSeenAt
    }
}
