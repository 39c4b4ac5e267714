import Dispatch
import NIOPosix
import NexusWire
import Synchronization
// SQLiteNIO's own SQLite, for the error a stopped thread gives.
import VaporCSQLite

/// A long list read in two halves at once, one on the list's reader and one on its helper,
/// each on its own thread: for someone in thousands of conversations the answer takes half
/// the time, on a machine with a core to spare (the scale target: 10,000 in at most 25 ms).
///
/// The halves must read the same commit, as one read transaction would: they begin while
/// the writer's thread is held (WriterHold), so nothing commits between their beginnings.
extension SQLiteConversationList {
    /// Fewer conversations than this are read whole: two threads cost more than they save.
    static let halvesFrom = 1_000

    /// How long a list waits for the writer to finish its current job before it reads whole
    /// instead: a group commit takes a few milliseconds, a long batch more.
    static let writerPatience = DispatchTimeInterval.milliseconds(3)

    /// As `json(viewer:allowed:present:on:)`, in halves when the viewer is in `halvesFrom`
    /// conversations or more. Runs on `connection`'s thread, and blocks it while `helper` reads.
    static func json(
        viewer: Int64, allowed: Set<Int64>?, present: @Sendable (User) -> User, on connection: SQLiteReadConnection,
        helper: SQLiteReadConnection, writerThread: NIOThreadPool, halvesFrom: Int = halvesFrom
    ) throws -> [UInt8] {
        guard let split = try split(viewer, from: halvesFrom, on: connection),
            let hold = WriterHold.take(writerThread, patience: writerPatience)
        else { return try json(viewer: viewer, allowed: allowed, present: present, on: connection) }
        // Released here, unless handed to the helper, which releases it once its half has begun.
        var held: WriterHold? = hold
        defer { held?.release() }
        try connection.execute("BEGIN")
        do {
            let hookBots = try hookBots(on: connection)
            let theirs = Half()
            let handed = hold
            held = nil
            // This thread reads its half at once; the helper lets the writer go once its own
            // transaction has begun.
            helper.submit { helper, running in
                theirs.read(viewer: viewer, allowed: allowed, share: .from(split), running: running, releasing: handed, on: helper)
            }
            let mine = Result { try part(viewer: viewer, allowed: allowed, share: .below(split), hookBots: hookBots, on: connection) }
            theirs.done.wait()
            let bytes = try assemble([mine.get(), theirs.result.withLock { $0 }!.get()], present: present, on: connection)
            try connection.execute("COMMIT")
            return bytes
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// The id that splits the viewer's conversations in two, nil for fewer than `halvesFrom`.
    /// Read before the halves' transaction: a conversation joined meanwhile only tilts them.
    private static func split(_ viewer: Int64, from halvesFrom: Int, on connection: SQLiteReadConnection) throws -> Int64? {
        // Whether there are that many, without counting them all (the split counts them):
        // a row at that place or none. The place is written into the SQL, because a bound
        // OFFSET makes SQLite re-prepare a kept statement at every new value (below); there
        // is one such place in use, and a test's.
        var enough = false
        try connection.query(
            "SELECT 1 FROM members WHERE user_id = ? LIMIT 1 OFFSET \(max(halvesFrom, 2) - 1)", [viewer]
        ) { _ in enough = true }
        guard enough else { return nil }
        var split: Int64?
        try connection.query(
            // The offset counted again here, rather than bound: SQLite re-prepares a kept
            // statement at every new value of an OFFSET parameter, even as `(SELECT ?)`.
            """
            SELECT conversation_id FROM members WHERE user_id = (SELECT ?1) ORDER BY conversation_id
            LIMIT 1 OFFSET (SELECT COUNT(*) / 2 FROM members WHERE user_id = (SELECT ?1))
            """, [viewer]
        ) { row in split = row.int(0) }
        return split
    }

    /// The helper's half: the ids from the split, in a read transaction of its own, begun
    /// while the writer is held.
    private final class Half: Sendable {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Part, any Error>?>(nil)

        func read(viewer: Int64, allowed: Set<Int64>?, share: Share, running: Bool, releasing hold: WriterHold, on helper: SQLiteReadConnection) {
            var released = false
            let read = Result<Part, any Error> {
                guard running else { throw DirectSQLiteError(code: SQLITE_MISUSE, message: "the SQLite read thread has stopped") }
                try helper.execute("BEGIN")
                defer { try? helper.execute("COMMIT") }
                let hookBots = try SQLiteConversationList.hookBots(on: helper)
                // Both halves see the same commit now: the writer may go on.
                hold.release()
                released = true
                return try SQLiteConversationList.part(viewer: viewer, allowed: allowed, share: share, hookBots: hookBots, on: helper)
            }
            if !released { hold.release() }
            result.withLock { $0 = read }
            done.signal()
        }
    }
}
