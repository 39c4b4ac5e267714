import LibC

/// A live client's goodbye (`DELETE /v1/presence/CLIENT`) before a clean exit: on SIGINT,
/// SIGTERM or SIGHUP, and at the end of `send --each-line`'s input, so its user goes
/// offline at once rather than after the server's grace.
extension TerminationGuard {
    nonisolated(unsafe) static var farewellPipe: Int32 = -1
    nonisolated(unsafe) private static var farewell: (() -> Void)?
    nonisolated(unsafe) private static var farewellDone = false
    /// Taken by a held window and by the farewell thread before it ends the process, so
    /// that never happens inside a window.
    nonisolated(unsafe) private static let windowLock: UnsafeMutablePointer<pthread_mutex_t> = {
        let p = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(p, nil)
        return p
    }()

    static func lockWindow() { pthread_mutex_lock(windowLock) }
    static func unlockWindow() { pthread_mutex_unlock(windowLock) }

    /// Says `body` before the process ends by a signal (once; a second signal meanwhile
    /// ends it at once). Call after `install`, once.
    public static func setFarewell(_ body: @escaping () -> Void) {
        guard farewellPipe < 0 else { return }
        farewell = body
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        readEnd = fds[0]
        var thread = pthread_t()
        let made = pthread_create(&thread, nil, { _ in
            TerminationGuard.farewellThread()
            return nil
        }, nil)
        guard made == 0 else { return }
        pthread_detach(thread)
        farewellPipe = fds[1]
    }

    nonisolated(unsafe) private static var readEnd: Int32 = -1

    /// Says the goodbye now, if there is one and it was not said (a normal end).
    public static func sayFarewell() {
        guard !farewellDone, let farewell else { return }
        farewellDone = true
        farewell()
    }

    /// Says the goodbye, then ends the process as `signal` would have.
    static func finish(_ signal: Int32) -> Never {
        sayFarewell()
        endProcess(signal)
    }

    private static func farewellThread() {
        var byte: UInt8 = 0
        while read(readEnd, &byte, 1) != 1 {}
        let signal = Int32(state[3])
        sayFarewell()
        lockWindow()
        if state[0] != 0 {
            // Inside a hold (`send --each-line` has read bytes not yet in the outbox): its release ends the process.
            state[1] = sig_atomic_t(signal)
            unlockWindow()
            return
        }
        endProcess(signal)
    }
}
