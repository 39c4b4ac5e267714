import NIOCore
import NIOPosix
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
        var shutDown = false
    }

    private let state = Mutex(State())

    func version(of user: Int64) -> UInt64 {
        state.withLock { $0.versions[user] ?? 0 }
    }

    func notify(users: some Sequence<Int64>) {
        let toWake = state.withLock { state in
            var wake: [CheckedContinuation<Void, Never>] = []
            for user in users {
                state.versions[user, default: 0] &+= 1
                guard let waiting = state.waiters.removeValue(forKey: user) else { continue }
                wake += waiting.values
            }
            return wake
        }
        for continuation in toWake { continuation.resume() }
    }

    /// Wakes every waiter to look again: after the cluster bus reconnected, what it
    /// missed is unknown.
    func wakeEveryone() {
        let waiting = state.withLock { Array($0.waiters.keys) }
        notify(users: waiting)
    }

    /// Returns when the user's version differs from `seen`, or after `timeout`.
    ///
    /// The timeout is a timer on an event loop, left to fire when a notification came
    /// first (it then finds no waiter): a sleeping Task per poll cost 10,000 tasks for
    /// 10,000 polls, and cancelling NIO's timers searches its heap, which a message
    /// waking 10,000 polls made quadratic (issue 19).
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
            let (seconds, attoseconds) = timeout.components
            let nanoseconds = min(seconds, 86_400) * 1_000_000_000 + attoseconds / 1_000_000_000
            MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: .nanoseconds(max(0, nanoseconds))) {
                self.expire(user: user, token: token)
            }
        }
    }

    /// Wakes every waiter and makes later waits return at once, so that held long-polls
    /// answer and a graceful shutdown does not wait out their timeouts.
    func shutdown() {
        let waiters = state.withLock { state in
            state.shutDown = true
            let waiters = state.waiters.values.flatMap(\.values)
            state.waiters.removeAll()
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var isShutDown: Bool { state.withLock { $0.shutDown } }

    private func expire(user: Int64, token: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            let c = state.waiters[user]?.removeValue(forKey: token)
            if state.waiters[user]?.isEmpty == true { state.waiters[user] = nil }
            return c
        }
        continuation?.resume()
    }
}
