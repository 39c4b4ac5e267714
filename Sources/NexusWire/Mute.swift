/// A conversation the account muted: nothing notifies of it (desktop, terminal or push)
/// until `until`, or until unmuted when that is nil. Unread counts still count. Kept on
/// the server per account, so every device follows it (docs/notifications.md).
public struct Mute: Codable, Hashable, Sendable {
    public var conversationId: Int64
    public var until: Timestamp?
    /// A message that mentions the account notifies all the same.
    public var exceptMentions: Bool

    public init(conversationId: Int64, until: Timestamp? = nil, exceptMentions: Bool = false) {
        self.conversationId = conversationId
        self.until = until
        self.exceptMentions = exceptMentions
    }

    /// The mutes by conversation, as the notifiers and chat's list look them up.
    public static func byConversation(_ mutes: [Mute]) -> [Int64: Mute] {
        Dictionary(mutes.map { ($0.conversationId, $0) }, uniquingKeysWith: { $1 })
    }

    /// Still in force at `now`.
    public func holds(at now: Timestamp) -> Bool { until.map { $0.milliseconds > now.milliseconds } ?? true }

    /// A short digest of a list of mutes, the same on every replica: `mutes=` in a sync
    /// request, answered with the list when it no longer matches.
    public static func digest(of mutes: [Mute]) -> String {
        FNV1a.hex(mutes.sorted { $0.conversationId < $1.conversationId }.map {
            "\($0.conversationId):\($0.until?.milliseconds ?? 0):\($0.exceptMentions ? 1 : 0),"
        }.joined())
    }
}

/// `PUT /v1/conversations/{id}/mute`. Idempotent: the same request again changes nothing.
public struct MuteRequest: Codable, Sendable, Equatable {
    /// nil: until unmuted.
    public var until: Timestamp?
    public var exceptMentions: Bool?

    public init(until: Timestamp? = nil, exceptMentions: Bool? = nil) {
        self.until = until
        self.exceptMentions = exceptMentions
    }
}

/// The answer to a mute or an unmute: the conversation's mute as it now is (nil: not
/// muted), and whether the request changed it.
public struct MuteResponse: Codable, Sendable, Equatable {
    public var conversationId: Int64
    public var mute: Mute?
    public var changed: Bool

    public init(conversationId: Int64, mute: Mute?, changed: Bool) {
        self.conversationId = conversationId
        self.mute = mute
        self.changed = changed
    }
}

/// FNV-1a, 64 bits, in hex: a digest that is short and stable across processes, for
/// telling that a list changed (not for anything an attacker chooses to collide).
public enum FNV1a {
    public static func hex(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }
}
