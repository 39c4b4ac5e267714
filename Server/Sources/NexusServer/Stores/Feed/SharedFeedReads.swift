import NexusWire
import NIOCore
import Synchronization

/// One feed read shared by the long polls that ask the same thing at the same time.
///
/// A user tailing from ten terminals holds ten polls at one cursor; a message wakes all ten
/// at once, and each used to run the same feed query and encode the same answer (in the scale test:
/// 10,000 polls, 10,000 queries per message). Here the first asks, and the others that
/// arrive while it reads take its page, events and encoded answer alike.
///
/// Sharing must not lose a wake-up. A poll joins a read only if that read began at or after
/// the notifier version the poll holds: the version moves after a commit, so a read that
/// began at that version or later sees every commit that moved it. A read begun before
/// would not (the poll would get nothing and sleep through its message).
final class SharedFeedReads: Sendable {
    struct Key: Hashable, Sendable {
        let viewer: Int64
        let after: Int64
        let conversationId: Int64?
        let limit: Int
    }

    /// A page of the feed, and the answer to a plain poll (no typing, no presence) that
    /// found events, encoded once.
    struct Page: Sendable {
        let events: [SyncEvent]
        let body: ByteBuffer?
    }

    private struct Entry {
        let version: UInt64
        let task: Task<Page, any Error>
    }

    private let inFlight = Mutex<[Key: Entry]>([:])

    /// The page for `key`, read by `read` or taken from a read of the same key begun at
    /// notifier version `version` or later.
    /// `taken` runs when it is taken from such a read, so that a test sees which it was
    /// while that read is still in flight.
    func page(
        _ key: Key, version: UInt64, taken: () -> Void = {}, read: @escaping @Sendable () async throws -> Page
    ) async throws -> Page {
        let (task, mine) = inFlight.withLock { map -> (Task<Page, any Error>, Bool) in
            if let entry = map[key], entry.version >= version { return (entry.task, false) }
            let task = Task { try await read() }
            map[key] = Entry(version: version, task: task)
            return (task, true)
        }
        if !mine { taken() }
        // Not cancelled with this request: the others waiting on it still want the page.
        let result = await task.result
        if mine {
            inFlight.withLock { map in
                if map[key]?.task == task { map[key] = nil }
            }
        }
        return try result.get()
    }

    /// Reads in flight (tests: every read is forgotten once answered).
    var count: Int { inFlight.withLock { $0.count } }
}
