import Synchronization

/// The message requests waiting for the writer's next group commit, shared by the handlers
/// (which add them without a hop onto the writer actor), the actor's drain loop, and its
/// SQLite thread (which takes them group after group without going back to the actor in
/// between: SQLiteWriter.commitMessages).
final class SendQueue: Sendable {
    typealias Request = (messages: [NewMessage], continuation: CheckedContinuation<[SendOutcome], any Error>)

    private struct State {
        var requests: [Request] = []
        /// `perform` jobs wait for the SQLite thread: it stops taking groups so that they
        /// get their turn (their connection must not write inside one of its transactions).
        var jobsWaiting = false
        /// The writer's drain loop runs (or has been started): set and cleared under the
        /// lock that guards `requests`, so a request added as the loop ends starts a new one.
        var draining = false
    }

    private let state = Mutex(State())

    /// Adds a request; true when the caller must start the drain loop.
    func append(_ request: Request) -> Bool {
        state.withLock { state in
            state.requests.append(request)
            defer { state.draining = true }
            return !state.draining
        }
    }

    /// True when the caller must start the drain loop (it was not running).
    func claimDraining() -> Bool {
        state.withLock { state in
            defer { state.draining = true }
            return !state.draining
        }
    }

    /// Ends the drain loop if no request waits; false when one does (the loop goes on).
    func finishDraining() -> Bool {
        state.withLock { state in
            if !state.requests.isEmpty { return false }
            state.draining = false
            return true
        }
    }

    var isEmpty: Bool { state.withLock { $0.requests.isEmpty } }

    func setJobsWaiting(_ waiting: Bool) { state.withLock { $0.jobsWaiting = waiting } }

    /// The next group: whole requests, up to `maxMessages` messages (a larger request goes
    /// alone). Empty when nothing waits, or when jobs wait and `yieldingToJobs`.
    func takeGroup(maxMessages: Int, yieldingToJobs: Bool) -> [Request] {
        state.withLock { state in
            if yieldingToJobs && state.jobsWaiting { return [] }
            var count = 0
            var taken = 0
            for request in state.requests {
                if taken > 0 && count + request.messages.count > maxMessages { break }
                count += request.messages.count
                taken += 1
            }
            let group = Array(state.requests.prefix(taken))
            state.requests.removeFirst(taken)
            return group
        }
    }

    /// Everything waiting, to fail it when the SQLite thread has stopped.
    func takeAll() -> [Request] {
        state.withLock { state in
            defer { state.requests.removeAll() }
            return state.requests
        }
    }
}
