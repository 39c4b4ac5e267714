import SQLiteNIO

/// The one connection that writes, with group commit.
///
/// Every write waits for a durable commit (WAL with synchronous=FULL: an fsync per
/// commit). One fsync per request would cap throughput at the disk's fsync rate, so
/// writes that arrive while a commit is in flight are gathered and committed together:
/// one fsync acknowledges them all. Serialising writes here also makes the feed's ids
/// commit in order, which keeps sync cursors gap-safe.
actor SQLiteWriter {
    private let connection: SQLiteConnection
    private var pending: [Job] = []
    private var draining = false
    private let maxBatch = 1024

    private struct Job {
        let run: @Sendable (SQLiteConnection) async -> Void
        let finish: @Sendable ((any Error)?) -> Void
    }

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Runs `operation` inside the next group transaction and returns once that
    /// transaction is committed. An operation that throws has its own statements rolled
    /// back (a savepoint each) without harming the others in its group.
    func perform<T: Sendable>(_ operation: @escaping @Sendable (SQLiteConnection) async throws -> T) async throws -> T {
        let box = ResultBox<T>()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            pending.append(
                Job(
                    run: { connection in
                        do {
                            _ = try await connection.query("SAVEPOINT op")
                            let value = try await operation(connection)
                            _ = try await connection.query("RELEASE op")
                            box.result = .success(value)
                        } catch {
                            _ = try? await connection.query("ROLLBACK TO op")
                            _ = try? await connection.query("RELEASE op")
                            box.result = .failure(error)
                        }
                    },
                    finish: { commitError in
                        if let commitError {
                            continuation.resume(throwing: commitError)
                        } else {
                            continuation.resume(with: box.result!)
                        }
                    }))
            if !draining {
                draining = true
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while !pending.isEmpty {
            let batch = Array(pending.prefix(maxBatch))
            pending.removeFirst(batch.count)
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
        draining = false
    }

    func close() async throws {
        try await connection.close()
    }
}

/// Carries one operation's result from its run to its finish; both happen in order
/// on the writer, so no two threads touch it at once.
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
