import Foundation
import Testing

/// `launch` (Harness.swift) keeps one test's pipes, and the socket by which Foundation sees a
/// child end, out of the children another test starts at the same moment.
@Suite struct LaunchTests {
    /// Children that live until killed, started one after another on a thread of their own.
    final class Sleepers: @unchecked Sendable {
        private let lock = NSLock()
        private var started: [Process] = []
        private var stopping = false
        private let finished = DispatchSemaphore(value: 0)

        init() {
            Thread.detachNewThread { [self] in
                while lock.withLock({ !stopping }) {
                    let sleeper = Process()
                    sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
                    sleeper.arguments = ["60"]
                    sleeper.standardOutput = FileHandle.nullDevice
                    guard (try? launch(sleeper) {}) != nil else { break }
                    lock.withLock { started.append(sleeper) }
                }
                finished.signal()
            }
        }

        /// Stops starting them, kills them all, and says how many there were.
        func killAll() -> Int {
            lock.withLock { stopping = true }
            finished.wait()
            let all = lock.withLock { started }
            for sleeper in all { kill(sleeper.processIdentifier, SIGKILL) }
            for sleeper in all { _ = ends(sleeper, within: 5) }
            return all.count
        }
    }

    /// With `launch`'s lock switched off, each of four runs saw 11 or 12 of the 300 ends
    /// late: the child had exited, but a sleeper started at that moment held its socket
    /// (and its pipe) until killed.
    @Test func eachChildIsSeenToEndWhileAnotherThreadStartsLongLivedOnes() throws {
        let sleepers = Sleepers()
        var late = 0
        for _ in 0..<300 {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/bin/echo")
            child.arguments = ["x"]
            try launch(child) { child.standardOutput = Pipe() }
            if !ends(child, within: 5) { late += 1 }
        }
        let started = sleepers.killAll()
        #expect(started > 10, "the sleepers' thread started only \(started) children")
        #expect(late == 0, "\(late) of 300 children were still seen running 5 s after they began")
    }
}
