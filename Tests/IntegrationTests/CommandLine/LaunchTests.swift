import Foundation
import Testing

/// `launch` (Children.swift) keeps one test's pipes, and the socket by which Foundation sees a
/// child end, out of the children another test starts at the same moment.
@Suite struct LaunchTests {
    /// Starts children that would live until killed, one after another on a thread of its
    /// own, and notes the pipes each was given beyond its standard three before killing it.
    ///
    /// Each thread keeps one sleeper alive at a time. Foundation's `Process.run` over-reads a
    /// buffer while it lists /proc/self/fd (swiftlang/swift-corelibs-foundation#5472); past
    /// about 1,350 open descriptors that can crash. An earlier form of this test, which left
    /// its sleepers running until the end, held 2,300 descriptors open and crashed a CI run.
    final class Sleepers: @unchecked Sendable {
        private let lock = NSLock()
        private var pipesHeld: [String] = []
        private var count = 0
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
                    let held = descriptors(of: sleeper.processIdentifier).filter { $0.hasPrefix("pipe:") }
                    kill(sleeper.processIdentifier, SIGKILL)
                    _ = ends(sleeper, within: 5)
                    lock.withLock { pipesHeld += held; count += 1 }
                }
                finished.signal()
            }
        }

        /// Stops starting them; says how many there were and which pipes they held.
        func stop() -> (count: Int, pipesHeld: Set<String>) {
            lock.withLock { stopping = true }
            finished.wait()
            return lock.withLock { (count, Set(pipesHeld)) }
        }
    }

    /// With `launch`'s lock switched off, 7 to 26 of the 1,000 children's pipes were held by
    /// a sleeper started at that moment (seven runs). A pipe so held never reaches end of
    /// file; when sleepers were left running, 11 or 12 of 300 children were seen to end late.
    @Test func noChildsPipeLeaksIntoAChildAnotherThreadStartsAtThatMoment() throws {
        let sleepers = [Sleepers(), Sleepers()]
        var pipes: Set<String> = []
        var late = 0
        for _ in 0..<1000 {
            let (child, pipe) = try startEcho()
            pipes.insert(pipe)
            if !ends(child, within: 5) { late += 1 }
        }
        let stopped = sleepers.map { $0.stop() }
        let started = stopped.map(\.count).min() ?? 0
        let held = stopped.reduce(Set<String>()) { $0.union($1.pipesHeld) }
        #expect(started > 10, "a sleepers' thread started only \(started) children")
        #expect(held.intersection(pipes).isEmpty, "\(held.intersection(pipes).count) of 1,000 children's pipes leaked into a sleeper")
        #expect(late == 0, "\(late) of 1,000 children were still seen running 5 s after they began")
    }

    /// Foundation holds on to a Process, and so to its pipes, after the child ends, until
    /// `waitUntilExit` or the launching thread's run loop lets it go; `ends` does the first.
    /// Without that call, all 100 pipes were still open here.
    @Test func anEndedChildIsLetGoWithItsPipes() throws {
        var pipes: Set<String> = []
        for _ in 0..<100 {
            let (child, pipe) = try startEcho()
            pipes.insert(pipe)
            #expect(ends(child, within: 5))
        }
        let open = Set(descriptors(of: getpid())).intersection(pipes)
        #expect(open.isEmpty, "\(open.count) of 100 ended children's pipes are still open")
    }
}

/// An `echo` started through `launch`, and what its stdout pipe is ("pipe:[…]").
private func startEcho() throws -> (Process, String) {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/bin/echo")
    child.arguments = ["x"]
    let pipe = try launch(child) {
        let pipe = Pipe()
        child.standardOutput = pipe
        return pipe
    }
    return (child, link(getpid(), pipe.fileHandleForReading.fileDescriptor))
}

/// What each descriptor of process `pid` beyond the standard three refers to ("pipe:[…]").
private func descriptors(of pid: pid_t) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
    return names.compactMap(Int32.init).filter { $0 > 2 }.map { link(pid, $0) }
}

private func link(_ pid: pid_t, _ fd: Int32) -> String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) ?? "?"
}
