import SQLiteNIO

/// The one connection that writes, with group commit.
///
/// Every write waits for a durable commit (WAL with synchronous=FULL: an fsync per
/// commit). One fsync per request would cap throughput at the disk's fsync rate, so
/// writes that arrive while a commit is in flight are gathered and committed together:
/// one fsync acknowledges them all. Messages in a group go in with one multi-row
/// statement (`insertMessages`, SQLiteMessageStore.insert), because each statement costs
/// a trip to the thread pool. The writer only groups and commits; what is written is the
/// stores'. Serialising writes here also makes the feed's ids commit in order,
/// which keeps sync cursors gap-safe.
actor SQLiteWriter {
    let connection: SQLiteConnection
    private var pending: [Job] = []
    private var pendingMessages: [(messages: [NewMessage], continuation: CheckedContinuation<[SendOutcome], any Error>)] = []
    private var draining = false
    let maxBatch = 1000
    /// Writes one group of message requests, with one statement where it can.
    typealias InsertMessages = @Sendable ([NewMessage], SQLiteConnection) async throws -> [SendOutcome]
    private let insertMessages: InsertMessages
    /// The connection sends take when there is one (not for ":memory:", which is private to
    /// `connection`): statements kept, and no trip through SQLiteNIO's row hand-offs. It
    /// writes only from this actor's drain loop, between the other connection's commits.
    private let direct: SQLiteDirect?

    private struct Job {
        let run: @Sendable (SQLiteConnection) async -> Void
        let finish: @Sendable ((any Error)?) -> Void
    }

    init(connection: SQLiteConnection, direct: SQLiteDirect? = nil, insertMessages: @escaping InsertMessages) {
        self.connection = connection
        self.direct = direct
        self.insertMessages = insertMessages
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
            startDraining()
        }
    }

    /// Stores messages in the next group commit; idempotent per (sender, localId).
    func send(_ messages: [NewMessage]) async throws -> [SendOutcome] {
        if messages.isEmpty { return [] }
        return try await withCheckedThrowingContinuation { continuation in
            pendingMessages.append((messages, continuation))
            startDraining()
        }
    }

    private func startDraining() {
        if !draining {
            draining = true
            Task { await self.drain() }
        }
    }

    private func drain() async {
        while !pending.isEmpty || !pendingMessages.isEmpty {
            let batch = Array(pending.prefix(maxBatch))
            pending.removeFirst(batch.count)
            // Whole requests, up to maxBatch messages (a larger request goes alone).
            var messages: [(messages: [NewMessage], continuation: CheckedContinuation<[SendOutcome], any Error>)] = []
            var count = 0
            while let next = pendingMessages.first, messages.isEmpty || count + next.messages.count <= maxBatch {
                messages.append(pendingMessages.removeFirst())
                count += next.messages.count
            }
            if !batch.isEmpty { await commit(batch) }
            if !messages.isEmpty { await commit(messages) }
        }
        draining = false
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

    /// A group of message requests, in one transaction of its own: `insertMessages` fails
    /// or succeeds for the group as a whole.
    private func commit(_ requests: [(messages: [NewMessage], continuation: CheckedContinuation<[SendOutcome], any Error>)]) async {
        do {
            let messages = requests.flatMap(\.messages)
            var outcomes: ArraySlice<SendOutcome>
            if let direct {
                outcomes = try await direct.run { db in
                    if messages.count <= SQLiteMessageStore.rowsPerStatement { return try SQLiteMessageStore.insert(messages, on: db) }
                    _ = try db.query("BEGIN IMMEDIATE")
                    do {
                        let outcomes = try SQLiteMessageStore.insert(messages, on: db)
                        _ = try db.query("COMMIT")
                        return outcomes
                    } catch {
                        _ = try? db.query("ROLLBACK")
                        throw error
                    }
                }[...]
            } else if messages.count <= SQLiteMessageStore.rowsPerStatement {
                // One INSERT (its trigger writes the feed), which SQLite commits atomically
                // and durably by itself: the hot path takes one trip to SQLite's thread.
                outcomes = try await insertMessages(messages, connection)[...]
            } else {
                _ = try await connection.query("BEGIN IMMEDIATE")
                do {
                    outcomes = try await insertMessages(messages, connection)[...]
                    _ = try await connection.query("COMMIT")
                } catch {
                    _ = try? await connection.query("ROLLBACK")
                    throw error
                }
            }
            for request in requests {
                request.continuation.resume(returning: Array(outcomes.prefix(request.messages.count)))
                outcomes = outcomes.dropFirst(request.messages.count)
            }
        } catch {
            for request in requests { request.continuation.resume(throwing: SQLiteDatabase.surfaced(error)) }
        }
    }

    func close() async throws {
        _ = try? await direct?.run { $0.closeNow() }
        try await connection.close()
    }
}

/// Carries one operation's result from its run to its finish; both happen in order
/// on the writer, so no two threads touch it at once.
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
