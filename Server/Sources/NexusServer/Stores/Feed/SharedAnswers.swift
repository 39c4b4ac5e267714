import NexusCore
import NIOCore
import Synchronization

/// One encoded answer for the users whose polls found the same events.
///
/// A message to a group of 1,000 wakes 1,000 users' polls (issue 19); each reads its own
/// page (what a user may see is theirs to read), and each page is the same event, which
/// each used to encode again. Here a page whose events are equal, field by field, to a
/// page already encoded takes its bytes: equal events make equal answers (the cursor and
/// its check come from the last event), so sharing cannot show one user another's view.
final class SharedAnswers: Sendable {
    private struct Key: Hashable {
        let after: Int64
        let last: Int64
    }

    private struct Entry {
        let events: [SyncEvent]
        let body: ByteBuffer
    }

    /// A few recent answers: polls woken together ask within milliseconds of each other.
    private static let capacity = 64
    private let recent = Mutex<[Key: Entry]>([:])

    /// The answer for `events` after `after`, encoded by `encode` unless an equal page was.
    func body(after: Int64, events: [SyncEvent], encode: () throws -> ByteBuffer) rethrows -> ByteBuffer {
        guard let last = events.last else { return try encode() }
        let key = Key(after: after, last: last.id)
        if let entry = recent.withLock({ $0[key] }), entry.events == events { return entry.body }
        let body = try encode()
        recent.withLock { map in
            if map.count >= Self.capacity { map.removeAll(keepingCapacity: true) }
            map[key] = Entry(events: events, body: body)
        }
        return body
    }
}
