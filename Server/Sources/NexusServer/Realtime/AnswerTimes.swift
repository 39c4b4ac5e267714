import NexusWire
import Synchronization

/// When the feed last answered each viewer at each cursor. Typing announced after that
/// answer is news to the poll that comes next with its cursor, though announced before the
/// poll came: a client re-polls a moment after each answer, and an announcement in that
/// moment was otherwise heard only with the next one, 2 s on (or never, for the last).
final class AnswerTimes: Sendable {
    struct Key: Hashable {
        let viewer: Int64
        let conversationId: Int64?
        let cursor: Int64
    }

    private let times = Mutex<[Key: Timestamp]>([:])
    /// Kept for longer than typing lasts (3 s); a poll coming later has long missed nothing.
    private let keepMs: Int64 = 10_000

    func note(_ key: Key, at now: Timestamp) {
        times.withLock { all in
            all[key] = now
            if all.count > 4096 { all = all.filter { now.milliseconds - $0.value.milliseconds < keepMs } }
        }
    }

    /// The answer's time, if one was made at `key` lately.
    func time(_ key: Key, now: Timestamp) -> Timestamp? {
        times.withLock { all in all[key].flatMap { now.milliseconds - $0.milliseconds < keepMs ? $0 : nil } }
    }
}
