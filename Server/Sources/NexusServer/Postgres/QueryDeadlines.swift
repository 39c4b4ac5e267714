import Synchronization

/// The deadline of every database call (PostgresDatabase.deadline), kept by one watchdog
/// for all of them. A task group racing each query against its own `Task.sleep` cost two
/// child tasks and a dispatch timer set and cancelled a query: about a sixth of a
/// replica's CPU on single sends (issue 19's profile). Here a call is one task and a
/// table entry; a watchdog that ticks every `tick` while calls are in flight fails those
/// past their deadline (`DatabaseUnavailable`) and cancels them, so a call gives up at
/// most one tick late.
final class QueryDeadlines: Sendable {
    private struct Waiter {
        let deadline: ContinuousClock.Instant
        let expire: @Sendable () -> Void
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var next: UInt64 = 0
        var watching = false
    }

    private let state = Mutex(State())
    static let tick: Duration = .milliseconds(100)

    /// `operation`'s result, or `DatabaseUnavailable` once `limit` has passed (the
    /// operation is then cancelled). Cancelling the caller cancels the operation.
    func run<T: Sendable>(within limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let outcome = Outcome<T>()
        let task = Task {
            do { outcome.finish(with: .success(try await operation())) } catch { outcome.finish(with: .failure(error)) }
        }
        let id = add(Waiter(deadline: .now + limit) {
            outcome.finish(with: .failure(DatabaseUnavailable()))
            task.cancel()
        })
        defer { remove(id) }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            task.cancel()
        }
    }

    private func add(_ waiter: Waiter) -> UInt64 {
        let (id, start) = state.withLock { state -> (UInt64, Bool) in
            state.next &+= 1
            state.waiters[state.next] = waiter
            defer { state.watching = true }
            return (state.next, !state.watching)
        }
        if start { Task { await self.watch() } }
        return id
    }

    private func remove(_ id: UInt64) {
        _ = state.withLock { $0.waiters.removeValue(forKey: id) }
    }

    /// Runs while calls are in flight; the last tick to find none stops it.
    private func watch() async {
        while true {
            try? await Task.sleep(for: Self.tick)
            let now = ContinuousClock.now
            let (due, more) = state.withLock { state -> ([Waiter], Bool) in
                let due = state.waiters.filter { $0.value.deadline <= now }
                for id in due.keys { state.waiters.removeValue(forKey: id) }
                if state.waiters.isEmpty { state.watching = false }
                return (Array(due.values), !state.waiters.isEmpty)
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
