import Synchronization

/// Every database call in flight: its deadline (PostgresDatabase.deadline) and the pool it
/// runs on, kept by one table. A task group racing each query against its own `Task.sleep`
/// cost two child tasks and a dispatch timer set and cancelled a query: about a sixth of a
/// replica's CPU on single sends (in the bench's profile). Here a call is one task and a table
/// entry; a watchdog that ticks every `tick` while calls with a deadline are in flight fails
/// those past it (`DatabaseUnavailable`) and cancels them, so a call gives up at most one
/// tick late.
///
/// A pool dropped because its host stopped being the primary (`abandon`) fails its calls at
/// once, the same way: a call can be stuck on such a pool in ways its connection never
/// reports (under load, an INSERT queued on a pool whose host turned read-only waited out
/// the whole deadline with two idle connections ready), and one without a deadline would
/// wait for ever.
final class QueryDeadlines: Sendable {
    private struct Waiter {
        let deadline: ContinuousClock.Instant?
        let pool: ObjectIdentifier
        let expire: @Sendable () -> Void
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var next: UInt64 = 0
        var watching = false
    }

    private let state = Mutex(State())
    static let tick: Duration = .milliseconds(100)

    /// `operation`'s result, or `DatabaseUnavailable` once `limit` has passed or `pool` has
    /// been abandoned (the operation is then cancelled). Cancelling the caller cancels the
    /// operation.
    func run<T: Sendable>(
        on pool: PostgresPrimary.Pool, within limit: Duration?, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let outcome = Outcome<T>()
        let running = Mutex<Task<Void, Never>?>(nil)
        let expire: @Sendable () -> Void = {
            outcome.finish(with: .failure(DatabaseUnavailable()))
            running.withLock { $0 }?.cancel()
        }
        let id = add(Waiter(deadline: limit.map { .now + $0 }, pool: ObjectIdentifier(pool), expire: expire))
        defer { remove(id) }
        // The operation starts only once the call is in the table and its pool is not
        // dropped: a pool dropped before that was not seen by `abandon`, and a quick
        // operation started first could still have run on it and won.
        if pool.isDropped {
            expire()
        } else {
            let task = Task {
                guard !outcome.isFinished else { return }
                do { outcome.finish(with: .success(try await operation())) } catch { outcome.finish(with: .failure(error)) }
            }
            running.withLock { $0 = task }
            // Expired before the task was there to cancel.
            if outcome.isFinished { task.cancel() }
        }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            running.withLock { $0 }?.cancel()
        }
    }

    /// Marks `pool` dropped and fails every call in flight on it; `run` fails later ones.
    func abandon(_ pool: PostgresPrimary.Pool) {
        pool.markDropped()
        let key = ObjectIdentifier(pool)
        let gone = state.withLock { state -> [Waiter] in
            let gone = state.waiters.filter { $0.value.pool == key }
            for id in gone.keys { state.waiters.removeValue(forKey: id) }
            return Array(gone.values)
        }
        for waiter in gone { waiter.expire() }
    }

    private func add(_ waiter: Waiter) -> UInt64 {
        let (id, start) = state.withLock { state -> (UInt64, Bool) in
            state.next &+= 1
            state.waiters[state.next] = waiter
            guard waiter.deadline != nil, !state.watching else { return (state.next, false) }
            state.watching = true
            return (state.next, true)
        }
        if start { Task { await self.watch() } }
        return id
    }

    private func remove(_ id: UInt64) {
        _ = state.withLock { $0.waiters.removeValue(forKey: id) }
    }

    /// Runs while calls with a deadline are in flight; the last tick to find none stops it.
    private func watch() async {
        while true {
            try? await Task.sleep(for: Self.tick)
            let now = ContinuousClock.now
            let (due, more) = state.withLock { state -> ([Waiter], Bool) in
                let due = state.waiters.filter { $0.value.deadline.map { $0 <= now } ?? false }
                for id in due.keys { state.waiters.removeValue(forKey: id) }
                let more = state.waiters.values.contains { $0.deadline != nil }
                if !more { state.watching = false }
                return (Array(due.values), more)
            }
            for waiter in due { waiter.expire() }
            if !more { return }
        }
    }
}

/// The first result given wins; `value` waits for it.
private final class Outcome<T: Sendable>: Sendable {
    private struct State {
        var result: Result<T, any Error>?
        var waiter: CheckedContinuation<T, any Error>?
    }

    private let state = Mutex(State())

    func finish(with result: Result<T, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    var isFinished: Bool { state.withLock { $0.result != nil } }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<T, any Error>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
