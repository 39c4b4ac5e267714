import Synchronization

/// What tests wait on instead of sleeping: that a token's long poll has begun to wait
/// (parked, or in its task), so what they do next finds it held. Off unless a test turns
/// it on: a poll then pays one atomic load.
enum HeldPolls {
    enum Event: Hashable, Sendable {
        /// The poll began to wait: a notification now wakes it.
        case began
        /// Its connection's ParkingHandler holds it: a request pipelined behind it, or a
        /// shutdown's "close when idle", now waits for its answer. Comes a moment after
        /// `began`, once the stand-in reached the handler.
        case parked
        /// Its connection closed while it was parked, and its slot was given back.
        case hungUp
    }

    private struct Key: Hashable {
        let event: Event
        let hash: String
    }

    private static let on = Atomic<Bool>(false)

    private struct State {
        /// Events seen, by event and token hash.
        var seen: [Key: Int] = [:]
        var waiters: [(id: Int, key: Key, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextId = 0
        /// Waits cancelled before they were registered.
        var cancelled: Set<Int> = []
    }

    private static let state = Mutex(State())

    static func turnOn() { on.store(true, ordering: .relaxed) }

    /// A poll of the token `hash` has begun to wait: a notification now wakes it.
    static func began(_ hash: String) { record(.began, hash) }

    static func record(_ event: Event, _ hash: String) {
        guard on.load(ordering: .relaxed) else { return }
        let key = Key(event: event, hash: hash)
        let ready = state.withLock { state in
            state.seen[key, default: 0] += 1
            let count = state.seen[key]!
            let ready = state.waiters.filter { $0.key == key && $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.key == key && $0.count <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once polls of `hash` have seen `event` `count` times in all (`turnOn` first),
    /// or when the test is cancelled (its time limit ran out), so that it ends.
    static func wait(for hash: String, count: Int = 1, _ event: Event = .began) async {
        let key = Key(event: event, hash: hash)
        let id = state.withLock { state in
            defer { state.nextId += 1 }
            return state.nextId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if state.seen[key, default: 0] >= count || state.cancelled.remove(id) != nil { return true }
                    state.waiters.append((id, key, count, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let at = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.waiters.remove(at: at).continuation
            }
            waiting?.resume()
        }
    }
}
