import NIOCore
import Synchronization

/// Wakes long-polling sync requests when something new lands in a user's feed.
///
/// Each user has a version number that goes up with every notification. A poller reads
/// the version, then queries; if the query finds nothing it waits for the version to
/// move. A commit that lands between the query and the wait has already moved the
/// version, so the poller never sleeps through it.
final class FeedNotifier: Sendable {
    private struct State {
        var versions: [Int64: UInt64] = [:]
        var waiters: [Int64: [Int: CheckedContinuation<Void, Never>]] = [:]
        var nextToken = 0
        /// Each waiter's timeout, cancelled when a notification wakes it first.
        var timers: [Int: Task<Void, Never>] = [:]
        var shutDown = false
    }

    private let state = Mutex(State())

    func version(of user: Int64) -> UInt64 {
        state.withLock { $0.versions[user] ?? 0 }
    }

    func notify(users: some Sequence<Int64>) {
        let (toWake, timers) = state.withLock { state in
            var wake: [CheckedContinuation<Void, Never>] = []
            var timers: [Task<Void, Never>] = []
            for user in users {
                state.versions[user, default: 0] &+= 1
                guard let waiting = state.waiters.removeValue(forKey: user) else { continue }
                wake += waiting.values
                for token in waiting.keys {
                    if let timer = state.timers.removeValue(forKey: token) { timers.append(timer) }
                }
            }
            return (wake, timers)
        }
        for timer in timers { timer.cancel() }
        for continuation in toWake { continuation.resume() }
    }

    /// Wakes every waiter to look again: after the cluster bus reconnected, what it
    /// missed is unknown.
    func wakeEveryone() {
        let waiting = state.withLock { Array($0.waiters.keys) }
        notify(users: waiting)
    }

    /// Returns when the user's version differs from `seen`, or after `timeout`.
    func wait(user: Int64, seen: UInt64, timeout: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let token: Int? = state.withLock { state in
                if state.shutDown || (state.versions[user] ?? 0) != seen { return nil }
                let token = state.nextToken
                state.nextToken += 1
                state.waiters[user, default: [:]][token] = continuation
                return token
            }
            guard let token else { return continuation.resume() }
            let timer = Task {
                try? await Task.sleep(for: timeout)
                self.expire(user: user, token: token)
            }
            let armed = state.withLock { state in
                guard state.waiters[user]?[token] != nil else { return false }
                state.timers[token] = timer
                return true
            }
            if !armed { timer.cancel() }
        }
    }

    /// Wakes every waiter and makes later waits return at once, so that held long-polls
    /// answer and a graceful shutdown does not wait out their timeouts.
    func shutdown() {
        let (waiters, timers) = state.withLock { state in
            state.shutDown = true
            let waiters = state.waiters.values.flatMap(\.values)
            let timers = Array(state.timers.values)
            state.waiters.removeAll()
            state.timers.removeAll()
            return (waiters, timers)
        }
        for timer in timers { timer.cancel() }
        for waiter in waiters { waiter.resume() }
    }

    var isShutDown: Bool { state.withLock { $0.shutDown } }

    private func expire(user: Int64, token: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.timers[token] = nil
            let c = state.waiters[user]?.removeValue(forKey: token)
            if state.waiters[user]?.isEmpty == true { state.waiters[user] = nil }
            return c
        }
        continuation?.resume()
    }
}
