import Synchronization

/// What tests wait on instead of sleeping: that a token's long poll has begun to wait
/// (parked, or in its task), so what they do next finds it held. Off unless a test turns
/// it on: a poll then pays one atomic load.
enum HeldPolls {
    private static let on = Atomic<Bool>(false)

    private struct State {
        /// Waits begun, by token hash.
        var begun: [String: Int] = [:]
        var waiters: [(hash: String, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private static let state = Mutex(State())

    static func turnOn() { on.store(true, ordering: .relaxed) }

    /// A poll of the token `hash` has begun to wait: a notification now wakes it.
    static func began(_ hash: String) {
        guard on.load(ordering: .relaxed) else { return }
        let ready = state.withLock { state in
            state.begun[hash, default: 0] += 1
            let count = state.begun[hash]!
            let ready = state.waiters.filter { $0.hash == hash && $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.hash == hash && $0.count <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once polls of `hash` have begun to wait `count` times in all (`turnOn` first).
    static func wait(for hash: String, count: Int = 1) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.begun[hash, default: 0] >= count { return true }
                state.waiters.append((hash, count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
