import NexusWire
import Synchronization

/// This replica's side of the leases of live clients (Stores/Presence): the long polls it
/// holds now, and what it last wrote, so a busy `tail -f` costs one write a second, not
/// one a request.
final class PresenceHolds: Sendable {
    struct Key: Hashable, Sendable {
        var user: Int64
        var client: String
    }

    private struct State {
        /// Long polls in flight, by poll token.
        var polls: [Int: Key] = [:]
        var nextToken = 0
        /// The last lease written for a client, and whether it came from a poll.
        var written: [Key: (at: Timestamp, polling: Bool)] = [:]
    }

    private let state = Mutex(State())

    /// A request of a live client: the lease to write, or nil when one written just before covers it.
    func request(_ key: Key, now: Timestamp) -> PresenceLease? {
        state.withLock { s in
            // A request's lease lasts 60 s (a poll's is renewed by `due`): writing it every 10 s is plenty.
            if let w = s.written[key], w.polling || now.milliseconds - w.at.milliseconds < 10_000 { return nil }
            s.written[key] = (now, false)
            return PresenceLease(
                user: key.user, client: key.client, polling: false, at: now,
                until: Timestamp(milliseconds: now.milliseconds + Presence.onlineWindowMs))
        }
    }

    /// A long poll starts: its token for `end`, and the lease to write unless one was written in the last second.
    func begin(_ key: Key, now: Timestamp) -> (token: Int, lease: PresenceLease?) {
        state.withLock { s in
            let token = s.nextToken
            s.nextToken += 1
            s.polls[token] = key
            if let w = s.written[key], w.polling, now.milliseconds - w.at.milliseconds < 1_000 { return (token, nil) }
            s.written[key] = (now, true)
            return (token, Self.lease(key, now: now))
        }
    }

    /// The poll answered or its connection closed; a second call changes nothing.
    func end(_ token: Int) {
        state.withLock { _ = $0.polls.removeValue(forKey: token) }
    }

    /// The client said goodbye: stop renewing it.
    func forget(_ key: Key) {
        state.withLock { s in
            s.polls = s.polls.filter { $0.value != key }
            s.written[key] = nil
        }
    }

    /// The leases of the polls held now, renewed to `now + grace`.
    func due(now: Timestamp) -> [PresenceLease] {
        state.withLock { s in
            let keys = Set(s.polls.values)
            for key in keys { s.written[key] = (now, true) }
            s.written = s.written.filter { keys.contains($0.key) || now.milliseconds - $0.value.at.milliseconds < Presence.onlineWindowMs }
            return keys.map { Self.lease($0, now: now) }
        }
    }

    private static func lease(_ key: Key, now: Timestamp) -> PresenceLease {
        PresenceLease(
            user: key.user, client: key.client, polling: true, at: now, until: Timestamp(milliseconds: now.milliseconds + Presence.graceMs))
    }
}

/// Every replica's copy of the shared leases, summed up by user, read again every second
/// (PresenceService): `present` answers from it without a query.
final class PresenceBoard: Sendable {
    private struct State {
        var leases: [Int64: HeldPresence] = [:]
        /// Who was held at the last look: a lease that simply runs out changes nothing in
        /// the store, only this.
        var held: Set<Int64> = []
    }

    private let state = Mutex(State())

    func state(of user: Int64) -> HeldPresence? {
        state.withLock { $0.leases[user] }
    }

    /// Takes the leases as the store has them now; answers the users who came or went
    /// (held at `now` or not) since the last look.
    func replace(_ new: [Int64: HeldPresence], now: Timestamp) -> Set<Int64> {
        state.withLock { s in
            let held = Set(new.compactMap { $0.value.until > now ? $0.key : nil })
            defer { s = State(leases: new, held: held) }
            return held.symmetricDifference(s.held)
        }
    }
}
