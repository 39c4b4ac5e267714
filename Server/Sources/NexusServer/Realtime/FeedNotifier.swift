import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Wakes long-polling sync requests when something new lands in a user's feed.
///
/// Each user has a version number that goes up with every notification. A poller reads
/// the version, then queries; if the query finds nothing it waits for the version to
/// move. A commit that lands between the query and the wait has already moved the
/// version, so the poller never sleeps through it.
final class FeedNotifier: Sendable {
    private enum Waiter {
        /// `loop`: the poll's connection's loop, where it is resumed (LoopResumer).
        case task(CheckedContinuation<Void, Never>, loop: (any EventLoop)?)
        case parked(ParkedPoll)
    }

    private struct State {
        var versions: [Int64: UInt64] = [:]
        var waiters: [Int64: [Int: Waiter]] = [:]
        var nextToken = 0
        var shutDown = false
    }

    private let state = Mutex(State())

    func version(of user: Int64) -> UInt64 {
        state.withLock { $0.versions[user] ?? 0 }
    }

    func notify(users: some Sequence<Int64>) {
        let (toWake, parked) = state.withLock { state in
            var wake = LoopResumer<CheckedContinuation<Void, Never>>()
            var parked: [ParkedPoll] = []
            for user in users {
                state.versions[user, default: 0] &+= 1
                guard let waiting = state.waiters.removeValue(forKey: user) else { continue }
                for waiter in waiting.values {
                    switch waiter {
                    case .task(let continuation, let loop): wake.add(continuation, on: loop)
                    case .parked(let poll): parked.append(poll)
                    }
                }
            }
            return (wake, parked)
        }
        toWake.run { $0.resume() }
        if !parked.isEmpty { ParkedPoll.wake(parked) }
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
    /// waking 10,000 polls made quadratic.
    ///
    /// `loop` is the poll's connection's event loop: the poll is resumed there, so its
    /// answer is written without a hop, and a message's 10,000 polls are not all resumed
    /// on the loop of the send that woke them.
    /// `waiting` runs once the wait is registered, when a notification would end it (tests).
    func wait(
        user: Int64, seen: UInt64, timeout: Duration, on loop: (any EventLoop)? = nil, waiting: () -> Void = {}
    ) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            guard let token = add(.task(continuation, loop: loop), user: user, seen: seen) else { return continuation.resume() }
            expire(user: user, token: token, in: timeout, on: loop ?? MultiThreadedEventLoopGroup.singleton.any())
            waiting()
        }
    }

    /// `wait` for a parked poll: false if the user's version is no longer `seen` (look
    /// again now); else the poll is woken as a waiter would be (ParkedPoll.wake).
    func park(_ poll: ParkedPoll, seen: UInt64, timeout: Duration) -> Bool {
        guard let token = add(.parked(poll), user: poll.poll.viewer, seen: seen) else { return false }
        expire(user: poll.poll.viewer, token: token, in: timeout, on: poll.loop)
        return true
    }

    /// A parked poll whose connection closed.
    func forget(_ poll: ParkedPoll) {
        let user = poll.poll.viewer
        state.withLock { state in
            guard let waiting = state.waiters[user] else { return }
            let left = waiting.filter { if case .parked(let p) = $0.value { p !== poll } else { true } }
            state.waiters[user] = left.isEmpty ? nil : left
        }
    }

    private func add(_ waiter: Waiter, user: Int64, seen: UInt64) -> Int? {
        state.withLock { state in
            if state.shutDown || (state.versions[user] ?? 0) != seen { return nil }
            let token = state.nextToken
            state.nextToken += 1
            state.waiters[user, default: [:]][token] = waiter
            return token
        }
    }

    /// Ends the wait after `timeout`, by a timer on `loop`.
    private func expire(user: Int64, token: Int, in timeout: Duration, on loop: any EventLoop) {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = min(seconds, 86_400) * 1_000_000_000 + attoseconds / 1_000_000_000
        loop.scheduleTask(in: .nanoseconds(max(0, nanoseconds))) {
            self.expire(user: user, token: token)
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
        resume(waiters)
    }

    /// Shuts the notifier down when the server shuts down gracefully. Called once, from the
    /// server's own task (onServerRunning), so that its handler is the server's: one
    /// handler for every held poll. A handler a poll cost each answer a search and a shift
    /// of ServiceLifecycle's array of handlers, 10,000 long while 10,000 polls were held
    /// (as in the scale test).
    func shutDownWithServer() {
        Task {
            // Throws only when cancelled, which nothing does.
            try? await gracefulShutdown()
            self.shutdown()
        }
    }

    var isShutDown: Bool { state.withLock { $0.shutDown } }

    private func expire(user: Int64, token: Int) {
        let waiter = state.withLock { state -> Waiter? in
            let w = state.waiters[user]?.removeValue(forKey: token)
            if state.waiters[user]?.isEmpty == true { state.waiters[user] = nil }
            return w
        }
        if let waiter { resume([waiter]) }
    }

    private func resume(_ waiters: [Waiter]) {
        var parked: [ParkedPoll] = []
        for waiter in waiters {
            switch waiter {
            case .task(let continuation, _): continuation.resume()
            case .parked(let poll): parked.append(poll)
            }
        }
        if !parked.isEmpty { ParkedPoll.wake(parked) }
    }
}
