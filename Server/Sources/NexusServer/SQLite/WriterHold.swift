import Dispatch
import NIOPosix
import Synchronization

/// The writer's thread, kept waiting between two of its jobs: while it is held nothing
/// commits, because every write to the file goes through that one thread. Two readers that
/// begin their read transactions while it is held see the same commit (the conversation
/// list read in halves, SQLiteConversationList+Halves), which SQLite cannot promise
/// otherwise without its snapshot API (not built into SQLiteNIO's SQLite).
///
/// Taken and released from a thread that may block (a reader's), never from an event loop
/// or the cooperative pool.
final class WriterHold: Sendable {
    private enum Phase: Int { case waiting, holding, abandoned }
    private let phase = Atomic<Int>(Phase.waiting.rawValue)
    private let started = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    private init() {}

    /// Holds `writerThread` once its current job ends, waiting at most `patience` for that:
    /// nil when the writer stays busy longer (a long batch), so the caller goes on without.
    static func take(_ writerThread: NIOThreadPool, patience: DispatchTimeInterval) -> WriterHold? {
        let hold = WriterHold()
        writerThread.submit { state in
            guard case .active = state, hold.move(from: .waiting, to: .holding) else { return }
            hold.started.signal()
            hold.released.wait()
        }
        if hold.started.wait(timeout: .now() + patience) == .success { return hold }
        // Too late, unless the job began in between: then it holds, and waits for release.
        if hold.move(from: .waiting, to: .abandoned) { return nil }
        hold.started.wait()
        return hold
    }

    /// Lets the writer go on; call it once.
    func release() { released.signal() }

    private func move(from: Phase, to: Phase) -> Bool {
        phase.compareExchange(expected: from.rawValue, desired: to.rawValue, ordering: .acquiringAndReleasing).exchanged
    }
}
