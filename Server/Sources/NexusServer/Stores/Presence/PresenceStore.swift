import NexusWire

/// A client process that keeps its user online while it lives (`tail -f`, `convos -f`,
/// `send --each-line`): it names itself in the `Nexus-Presence` header, and its lease is
/// renewed while it holds a long poll, or by each of its requests.
struct PresenceLease: Sendable, Equatable {
    var user: Int64
    var client: String
    /// True when the lease comes from a long poll: it then runs out `grace` after the last
    /// renewal instead of a request's 60 s.
    var polling: Bool
    var at: Timestamp
    var until: Timestamp
}

/// Per user: until when some lease keeps them online, and the last time one was renewed.
struct HeldPresence: Sendable, Equatable {
    var until: Timestamp
    var lastAt: Timestamp
}

/// Presence held by live clients, shared by every replica: who is online because a
/// process of theirs is connected. One-off requests stay in memory (Presence.touch).
protocol PresenceStore: Sendable {
    /// Starts or renews leases. A lease its client ended (`end`) is never revived. A
    /// polling lease replaces a request's longer one, so a `tail -f` that dies is offline
    /// after the grace even if it made other requests just before.
    func renew(_ leases: [PresenceLease], grace: Int64) async throws
    /// The client said goodbye: its lease ends now.
    func end(user: Int64, client: String, at: Timestamp) async throws
    /// Every lease, summed up by user (ended and expired ones until `sweep` removes them).
    func held() async throws -> [Int64: HeldPresence]
    /// Removes leases that ran out before `before`; answers each user's last renewal, for
    /// the stored last-seen time.
    func sweep(before: Timestamp) async throws -> [Int64: Timestamp]
}

extension PresenceLease {
    /// The lease after `new` is applied to `old` (the rule both backends follow).
    static func merged(_ old: PresenceLease, _ new: PresenceLease, grace: Int64) -> PresenceLease {
        var m = old
        m.at = max(old.at, new.at)
        switch (old.polling, new.polling) {
        case (false, true): m.until = new.until
        case (true, false): m.until = max(old.until, Timestamp(milliseconds: new.at.milliseconds + grace))
        default: m.until = max(old.until, new.until)
        }
        m.polling = old.polling || new.polling
        return m
    }
}
