import SQLiteNIO

/// The one connection that writes, with group commit.
///
/// Every write waits for a durable commit (WAL with synchronous=FULL: an fsync per
/// commit). One fsync per request would cap throughput at the disk's fsync rate, so
/// writes that arrive while a commit is in flight are gathered and committed together:
/// one fsync acknowledges them all. Messages in a group go in with one multi-row
/// statement (`GroupInsert`, which the message store gives), because each statement costs
/// a trip to the thread pool. The writer only groups and commits, and knows no store: what
/// is written is theirs. Serialising writes here also makes the feed's ids commit in order,
/// which keeps sync cursors gap-safe.
actor SQLiteWriter {
    let connection: SQLiteConnection
    private var pending: [Job] = []
    /// Message requests, which the SQLite thread takes group after group by itself.
    private let sends = SendQueue()
    let maxBatch = 1000
    private let inserts: GroupInsert
    /// The connection sends take when there is one (not for ":memory:", which is private to
    /// `connection`): statements kept, and no trip through SQLiteNIO's row hand-offs. It
    /// writes only while this actor's drain loop waits in `commitMessages`, between the
    /// other connection's commits.
    private let direct: SQLiteDirect?

    private struct Job {
        let run: @Sendable (SQLiteConnection) async -> Void
        let finish: @Sendable ((any Error)?) -> Void
    }

    init(connection: SQLiteConnection, direct: SQLiteDirect? = nil, inserts: GroupInsert) {
        self.connection = connection
        self.direct = direct
        self.inserts = inserts
    }

    /// Runs `operation` inside the next group transaction and returns once that
    /// transaction is committed. An operation that throws has its own statements rolled
    /// back without harming the others in its group: SQLite undoes a failed statement by
    /// itself, and an operation that writes with more than one statement must pass
    /// `multiStatement` to get a savepoint around it.
    func perform<T: Sendable>(
        multiStatement: Bool = false, _ operation: @escaping @Sendable (SQLiteConnection) async throws -> T
    ) async throws -> T {
        let box = ResultBox<T>()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            pending.append(
                Job(
                    run: { connection in
                        do {
                            if multiStatement { _ = try await connection.query("SAVEPOINT op") }
                            let value = try await operation(connection)
                            if multiStatement { _ = try await connection.query("RELEASE op") }
                            box.result = .success(value)
                        } catch {
                            if multiStatement {
                                _ = try? await connection.query("ROLLBACK TO op")
                                _ = try? await connection.query("RELEASE op")
                            }
                            box.result = .failure(error)
                        }
                    },
                    finish: { commitError in
                        if let commitError {
                            continuation.resume(throwing: SQLiteDatabase.surfaced(commitError))
                        } else {
                            continuation.resume(with: box.result!.mapError(SQLiteDatabase.surfaced))
                        }
                    }))
            sends.setJobsWaiting(true)
            startDraining()
        }
    }

    /// Stores messages in the next group commit; idempotent per (sender, localId). Not on
    /// the actor: a request joins the queue under its lock, with no hop onto the actor and
    /// back for every send.
    nonisolated func send(_ messages: [NewMessage]) async throws -> [SendOutcome] {
        if messages.isEmpty { return [] }
        return try await withCheckedThrowingContinuation { continuation in
            if sends.append((messages, continuation)) { Task { await self.drain() } }
        }
    }

    private func startDraining() {
        if sends.claimDraining() { Task { await self.drain() } }
    }

    /// Jobs and message groups by turns until neither waits. `perform` runs on the actor,
    /// so it cannot add a job between the last look at `pending` and `finishDraining`.
    private func drain() async {
        while true {
            let batch = Array(pending.prefix(maxBatch))
            pending.removeFirst(batch.count)
            if pending.isEmpty { sends.setJobsWaiting(false) }
            if !batch.isEmpty { await commit(batch) }
            if !sends.isEmpty { await commitMessages() }
            if pending.isEmpty && sends.finishDraining() { return }
        }
    }

    private func commit(_ batch: [Job]) async {
        var commitError: (any Error)?
        do {
            _ = try await connection.query("BEGIN IMMEDIATE")
            for job in batch { await job.run(connection) }
            _ = try await connection.query("COMMIT")
        } catch {
            commitError = error
            _ = try? await connection.query("ROLLBACK")
        }
        for job in batch { job.finish(commitError) }
    }

    /// Groups of message requests, each in one transaction of its own: `inserts`
    /// fails or succeeds for a group as a whole. On the direct connection the SQLite thread
    /// takes the next group as soon as a commit returns and answers each request from there:
    /// with the actor between two groups, each group cost two more thread hops, and the
    /// requests that came in during a commit waited for them. It stops when
    /// nothing waits or `perform` jobs do, so they still get their turn.
    private func commitMessages() async {
        guard let direct else {
            let group = sends.takeGroup(maxMessages: maxBatch, yieldingToJobs: false)
            let messages = group.flatMap(\.messages)
            do {
                if messages.count <= inserts.perStatement {
                    // One INSERT (its trigger writes the feed), which SQLite commits atomically
                    // and durably by itself: one trip to SQLite's thread.
                    let outcomes = try await inserts.onConnection(messages, connection)
                    Self.answer(group, outcomes)
                } else {
                    _ = try await connection.query("BEGIN IMMEDIATE")
                    do {
                        let outcomes = try await inserts.onConnection(messages, connection)
                        _ = try await connection.query("COMMIT")
                        Self.answer(group, outcomes)
                    } catch {
                        _ = try? await connection.query("ROLLBACK")
                        throw error
                    }
                }
            } catch {
                Self.fail(group, error)
            }
            return
        }
        let sends = sends, maxBatch = maxBatch, inserts = inserts
        do {
            try await direct.run { db in
                while true {
                    let group = sends.takeGroup(maxMessages: maxBatch, yieldingToJobs: true)
                    if group.isEmpty { return }
                    do {
                        let outcomes = try Self.insert(group.flatMap(\.messages), on: db, inserts)
                        Self.answer(group, outcomes)
                    } catch {
                        Self.fail(group, error)
                    }
                }
            }
        } catch {
            // The SQLite thread has stopped (shutdown): nothing it holds will be written.
            Self.fail(sends.takeAll(), error)
        }
    }

    /// One group on the direct connection: a self-committing INSERT, or a transaction
    /// around the INSERTs of a group too large for one.
    private static func insert(_ messages: [NewMessage], on db: SQLiteDirect, _ inserts: GroupInsert) throws -> [SendOutcome] {
        if messages.count <= inserts.perStatement { return try inserts.onDirect(messages, db) }
        _ = try db.query("BEGIN IMMEDIATE")
        do {
            let outcomes = try inserts.onDirect(messages, db)
            _ = try db.query("COMMIT")
            return outcomes
        } catch {
            _ = try? db.query("ROLLBACK")
            throw error
        }
    }

    private static func answer(_ group: [SendQueue.Request], _ outcomes: [SendOutcome]) {
        var outcomes = outcomes[...]
        for request in group {
            request.continuation.resume(returning: Array(outcomes.prefix(request.messages.count)))
            outcomes = outcomes.dropFirst(request.messages.count)
        }
    }

    private static func fail(_ group: [SendQueue.Request], _ error: any Error) {
        for request in group { request.continuation.resume(throwing: SQLiteDatabase.surfaced(error)) }
    }

    func close() async throws {
        _ = try? await direct?.run { $0.closeNow() }
        try await connection.close()
    }
}

/// How a group of queued sends is written, as the message store says (SQLiteMessageStore.inserts).
struct GroupInsert: Sendable {
    /// Sends one self-committing statement takes; a larger group gets a transaction around it.
    var perStatement: Int
    var onConnection: @Sendable ([NewMessage], SQLiteConnection) async throws -> [SendOutcome]
    /// The same on the direct connection, on SQLite's thread.
    var onDirect: @Sendable ([NewMessage], SQLiteDirect) throws -> [SendOutcome]
}

/// Carries one operation's result from its run to its finish; both happen in order
/// on the writer, so no two threads touch it at once.
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
