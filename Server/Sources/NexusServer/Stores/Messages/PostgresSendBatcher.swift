import NexusCore
import Synchronization

/// Group commit for single sends on PostgreSQL, as SQLite's writer has one. Every
/// transaction that appends to the feed holds the feed's advisory lock until its commit
/// returns (PostgresDatabase), so the commits of single sends are serial across all
/// replicas, and one commit a message caps sends at 1 / commit latency. Here the sends that
/// arrive at this nexusd while its previous group commits wait, and then go in together as
/// ONE transaction through the batch path: the lock, the WAL flush and the round trips are
/// paid once a group. Each request is answered after its group's commit returns, so
/// acknowledged still means committed; idempotency and seqs are the batch path's.
final class PostgresSendBatcher: Sendable {
    private struct Waiting {
        let message: NewMessage
        let continuation: CheckedContinuation<SendOutcome, any Error>
    }

    private struct State {
        var queue: [Waiting] = []
        var writing = false
    }

    private let state = Mutex(State())
    /// Stores a group in one transaction, outcomes in the group's order.
    private let write: @Sendable ([NewMessage]) async throws -> [SendOutcome]
    /// A transaction's size stays that of the largest batch a client may send.
    private let maxGroup: Int

    init(maxGroup: Int = Limits.maxBatchItems, write: @escaping @Sendable ([NewMessage]) async throws -> [SendOutcome]) {
        self.maxGroup = maxGroup
        self.write = write
    }

    func send(_ message: NewMessage) async throws -> SendOutcome {
        try await withCheckedThrowingContinuation { continuation in
            let lead = state.withLock { state in
                state.queue.append(Waiting(message: message, continuation: continuation))
                defer { state.writing = true }
                return !state.writing
            }
            // The first send to find nobody writing starts the drain; the rest only queue.
            if lead { Task { await self.drain() } }
        }
    }

    private func drain() async {
        while true {
            let group = state.withLock { state -> [Waiting] in
                let group = Array(state.queue.prefix(maxGroup))
                state.queue.removeFirst(group.count)
                if group.isEmpty { state.writing = false }
                return group
            }
            guard !group.isEmpty else { return }
            await commit(group)
        }
    }

    private func commit(_ group: [Waiting]) async {
        do {
            let outcomes = try await write(group.map(\.message))
            for (waiting, outcome) in zip(group, outcomes) { waiting.continuation.resume(returning: outcome) }
        } catch where group.count > 1 && !PostgresDatabase.isUnavailable(error) {
            // Possibly one message's reason (a constraint it breaks): each alone, so
            // the others still go in and each gets the answer it would have had by itself.
            for waiting in group {
                do {
                    waiting.continuation.resume(returning: try await write([waiting.message])[0])
                } catch {
                    waiting.continuation.resume(throwing: error)
                }
            }
        } catch {
            // The database is gone (503 with Retry-After) or the one message's own error.
            for waiting in group { waiting.continuation.resume(throwing: error) }
        }
    }
}
