import NexusWire
import Synchronization

/// Who was seen when. Every one-off request touches its user: their "last seen", never
/// their being online, which only a live client's lease gives (PresenceLeases.swift).
/// Times live in memory, so a request costs no database write, and are saved in batches
/// (AppServices.saveLastSeen) so "last seen" outlives a restart.
final class Presence: Sendable {
    /// The lease of a live client's request that is not a long poll, and the wait before
    /// an ended lease is folded into the stored last-seen time.
    static let onlineWindowMs: Int64 = 60_000
    /// How long a live client's user stays online after its last long poll ended: a
    /// `tail -f` renews its poll within this, one that died does not.
    static let graceMs: Int64 = 5_000

    private struct State {
        var seen: [Int64: Timestamp] = [:]
        var unsaved: [Int64: Timestamp] = [:]
    }

    private let state = Mutex(State())

    func touch(_ user: Int64, at now: Timestamp) {
        state.withLock {
            $0.seen[user] = now
            $0.unsaved[user] = now
        }
    }

    func lastSeen(_ user: Int64) -> Timestamp? {
        state.withLock { $0.seen[user] }
    }

    /// The times not saved yet; they count as saved from now on.
    func takeUnsaved() -> [Int64: Timestamp] {
        state.withLock { state in
            defer { state.unsaved.removeAll() }
            return state.unsaved
        }
    }
}

/// Who is typing where, for whom: a few seconds of state that never touches the database.
final class TypingBoard: Sendable {
    static let durationMs: Int64 = 3_000

    private struct Entry {
        var typing: Typing
        var setAt: Timestamp
    }

    /// By viewer, so a sync reads its own entries without knowing its conversations.
    private let entries = Mutex<[Int64: [Entry]]>([:])

    func set(_ typing: Typing, for viewers: [Int64], at now: Timestamp) {
        entries.withLock { all in
            for viewer in viewers {
                var list = (all[viewer] ?? []).filter { $0.typing.until > now }
                list.removeAll { $0.typing.conversationId == typing.conversationId && $0.typing.userId == typing.userId }
                list.append(Entry(typing: typing, setAt: now))
                all[viewer] = list
            }
        }
    }

    /// What `viewer` should show now, and whether any of it was set after `since`.
    func active(for viewer: Int64, conversationId: Int64?, now: Timestamp, since: Timestamp) -> (typing: [Typing], fresh: Bool) {
        entries.withLock { all in
            let list = (all[viewer] ?? []).filter { $0.typing.until > now && (conversationId == nil || $0.typing.conversationId == conversationId) }
            all[viewer] = list.isEmpty ? nil : list
            return (list.map(\.typing), list.contains { $0.setAt >= since })
        }
    }
}
