import NIOCore
import NIOPosix
import NexusWire
import Synchronization

/// Group commit for single sends on PostgreSQL, as SQLite's writer has one. Every
/// transaction that appends to the feed holds the feed's advisory lock until its commit
/// returns (PostgresDatabase), so the commits of single sends are serial across all
/// replicas, and one commit a message caps sends at 1 / commit latency. Here the sends that
/// arrive at this nexusd while its previous group commits wait, and then go in together as
/// ONE transaction through the batch path: the lock, the WAL flush and the round trips are
/// paid once a group. Each request is answered after its group's commit returns, so
/// acknowledged still means committed; idempotency and seqs are the batch path's.
///
/// Under load a group also waits a little for the senders the previous group just
/// answered (`gather`): see `gatherIfBusy`.
final class PostgresSendBatcher: Sendable {
    private struct Waiting {
        let message: NewMessage
        let continuation: CheckedContinuation<SendOutcome, any Error>
    }

    private struct State {
        var queue: [Waiting] = []
        var writing = false
        /// Senders seen at the last group's end: its own and those queued meanwhile.
        var active = 0
        var lastEnd: ContinuousClock.Instant?
        /// The drain while it gathers, and how many queued sends end the gather.
        var gathering: (continuation: CheckedContinuation<Void, Never>, target: Int)?
        /// Which gather a timer belongs to: an earlier one's must not end a later one.
        var gatherRound = 0
    }

    private let state = Mutex(State())
    /// Stores a group in one transaction, outcomes in the group's order.
    private let write: @Sendable ([NewMessage]) async throws -> [SendOutcome]
    /// A transaction's size stays that of the largest batch a client may send.
    private let maxGroup: Int
    /// The longest a group waits for senders the previous one answered; zero: never.
    private let gather: Duration

    init(
        maxGroup: Int = Limits.maxBatchItems, gather: Duration = .milliseconds(2),
        write: @escaping @Sendable ([NewMessage]) async throws -> [SendOutcome]
    ) {
        self.maxGroup = maxGroup
        self.gather = gather
        self.write = write
    }

    func send(_ message: NewMessage) async throws -> SendOutcome {
        try await withCheckedThrowingContinuation { continuation in
            let (lead, gathered) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
                state.queue.append(Waiting(message: message, continuation: continuation))
                var gathered: CheckedContinuation<Void, Never>?
                if let gathering = state.gathering, state.queue.count >= gathering.target {
                    gathered = gathering.continuation
                    state.gathering = nil
                }
                defer { state.writing = true }
                return (!state.writing, gathered)
            }
            gathered?.resume()
            // The first send to find nobody writing starts the drain; the rest only queue.
            if lead { Task { await self.drain() } }
        }
    }

    private func drain() async {
        while true {
            await gatherIfBusy()
            let group = state.withLock { state -> [Waiting] in
                let group = Array(state.queue.prefix(maxGroup))
                state.queue.removeFirst(group.count)
                if group.isEmpty { state.writing = false }
                return group
            }
            guard !group.isEmpty else { return }
            let outcomes = await outcomes(of: group.map(\.message))
            // Counted before any answer goes out: a sender answered may be queued again
            // before this, and would count twice.
            state.withLock { state in
                state.active = group.count + state.queue.count
                state.lastEnd = .now
            }
            for (waiting, outcome) in zip(group, outcomes) { waiting.continuation.resume(with: outcome) }
        }
    }

    /// Single sends come from clients that each wait for their answer before sending the
    /// next. With one group in flight, they split into cohorts that take turns: the
    /// bench's 4 clients a replica went in groups of 1.7 on average, and most of a send's
    /// cost, in PostgreSQL and in nexusd, is its group's. So when the previous group ended
    /// just now and fewer senders are queued than were active then, the group waits up to
    /// `gather` for the rest: the senders that group answered, sending again. An idle
    /// server never waits (no group ended within `gather`), and a sender that does not
    /// come back costs one wait, after which fewer are expected.
    private func gatherIfBusy() async {
        let target = state.withLock { state -> Int? in
            guard let end = state.lastEnd, end.duration(to: .now) < gather else { return nil }
            let target = min(state.active, maxGroup)
            return state.queue.count < target ? target : nil
        }
        guard let target else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let round = state.withLock { state -> Int? in
                guard state.queue.count < target else { return nil }
                state.gathering = (continuation, target)
                state.gatherRound += 1
                return state.gatherRound
            }
            guard let round else { return continuation.resume() }
            // A timer on this loop: `Task.sleep` went through Dispatch's timer thread and a
            // worker thread that handed the task back to a loop, 5 % of a replica's CPU on
            // the bench's single sends. Left to fire when the senders came first: it then
            // finds a later round, or none.
            let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? MultiThreadedEventLoopGroup.singleton.any()
            loop.scheduleTask(in: TimeAmount(gather)) {
                self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                    guard state.gatherRound == round else { return nil }
                    defer { state.gathering = nil }
                    return state.gathering?.continuation
                }?.resume()
            }
        }
    }

    /// The group's outcomes, in its order.
    private func outcomes(of messages: [NewMessage]) async -> [Result<SendOutcome, any Error>] {
        do {
            return try await write(messages).map { .success($0) }
        } catch where messages.count > 1 && !PostgresDatabase.isUnavailable(error) {
            // Possibly one message's reason (a constraint it breaks): each alone, so
            // the others still go in and each gets the answer it would have had by itself.
            var outcomes: [Result<SendOutcome, any Error>] = []
            for message in messages {
                do {
                    outcomes.append(.success(try await write([message])[0]))
                } catch {
                    outcomes.append(.failure(error))
                }
            }
            return outcomes
        } catch {
            // The database is gone (503 with Retry-After) or the one message's own error.
            return messages.map { _ in .failure(error) }
        }
    }
}
