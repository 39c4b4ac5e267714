import LibC

/// Holds SIGINT, SIGTERM and SIGHUP off while a feed event is written out and its position
/// saved, so an interrupted `tail -f` never leaves a line printed but not saved (which a
/// restart would print again). Outside that window such a signal ends the process at once,
/// with its default action, as before.
///
/// A handler and flags rather than a blocked signal mask: a process-directed signal goes to
/// any thread that doesn't block it (the hook's writer thread, say), so a mask on one thread
/// would not hold it off.
public enum TerminationGuard {
    /// [0]: inside the window; [1]: the signal that arrived inside it, or 0; [2]: the
    /// process group of a running child to end with us (a hook), or 0; [3]: the signal
    /// the farewell thread is ending the process for, or 0.
    nonisolated(unsafe) static let state: UnsafeMutablePointer<sig_atomic_t> = {
        let p = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 4)
        p.initialize(repeating: 0, count: 4)
        return p
    }()

    /// A child in a process group of its own (a hook) doesn't get the terminal's Ctrl-C:
    /// while it runs, a signal that ends us ends it too. 0 when it is done.
    public static func setChildGroup(_ group: pid_t) {
        state[2] = group
    }
    nonisolated(unsafe) private static var installed = false
    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Installs the handler (once). Call before the first `held`.
    public static func install() {
        guard !installed else { return }
        installed = true
        _ = state
        setSignalHandler(terminationHandler, for: signals, blocking: signals, flags: SA_RESTART)
    }

    /// Runs `body` with the signals held off; one that arrived meanwhile ends the process
    /// right after.
    public static func held<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        guard installed else { return try body() }
        lockWindow()
        state[0] = 1
        defer {
            state[0] = 0
            unlockWindow()
            let pending = state[1]
            if pending != 0 { finish(pending) }
        }
        return try body()
    }

    /// Holds the signals off until `release`, across calls: `send --each-line` holds them
    /// while it has read bytes that are not yet in the outbox.
    public static func hold() {
        guard installed else { return }
        lockWindow()
        state[0] = 1
        unlockWindow()
    }

    /// Ends the hold; a signal that arrived meanwhile ends the process now.
    public static func release() {
        guard installed else { return }
        state[0] = 0
        let pending = state[1]
        if pending != 0 { finish(pending) }
    }

    /// The signal that arrived during a hold, or 0.
    static var pendingSignal: Int32 { installed ? Int32(state[1]) : 0 }

    fileprivate static func arrived(_ signal: Int32) {
        if state[0] != 0 {
            state[1] = signal
        } else if farewellPipe >= 0, state[3] == 0 {
            // A goodbye can't be said from a signal handler: the farewell thread says it.
            state[3] = signal
            var byte: UInt8 = 1
            _ = write(farewellPipe, &byte, 1)
        } else {
            endProcess(signal)
        }
    }

    /// Run just before a signal ends the process, from the handler or the farewell thread,
    /// so it must be async-signal-safe: a full-screen command puts the terminal back there.
    nonisolated(unsafe) public static var beforeEnd: (@convention(c) () -> Void)?

    /// The default action of `signal`, so the parent sees the process killed by it.
    static func endProcess(_ sig: Int32) -> Never {
        beforeEnd?()
        if state[2] > 0 { kill(-state[2], SIGTERM) }
        signal(sig, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, sig)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(sig)
        _exit(128 + sig)
    }
}

private func terminationHandler(_ signal: Int32) {
    TerminationGuard.arrived(signal)
}
