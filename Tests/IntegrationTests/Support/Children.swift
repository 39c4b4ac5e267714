import Foundation

// Starting the tests' children (nexusd, nexusctl, helpers) and gathering what they print.

/// Lines a child process writes to a pipe, gathered as they come.
final class LineCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()

    /// Reads `pipe` to its end with blocking reads on a thread of its own. Not through
    /// FileHandle's readabilityHandler: its Dispatch read sources, set up and torn down from
    /// several threads at once, corrupt libdispatch's epoll bookkeeping on Linux
    /// (swiftlang/swift-corelibs-libdispatch#949). That crashed a CI run in
    /// `_dispatch_event_loop_drain`; six threads spawning children read that way lose end of
    /// file within two seconds, while blocking reads ran 25,000 children clean.
    func attach(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                // What has arrived, at once (read(upToCount:) would wait for the whole count);
                // empty only at end of file.
                let data = handle.availableData
                if data.isEmpty { return }
                lock.withLock { buffer.append(data) }
            }
        }
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: buffer, as: UTF8.self)
    }

    var lines: [String] { text.split(separator: "\n").map(String.init) }

    /// What follows `prefix` on the first whole line that starts with it, waiting up to
    /// `timeout`. Only a line with its newline counts: a writer's line can arrive in pieces
    /// (python3 with PYTHONUNBUFFERED writes `print`'s arguments one by one), and a port or
    /// URL read from half a line is wrong.
    func value(after prefix: String, timeout: Double = 10) -> String? {
        var found: String?
        _ = wait(timeout: timeout) { _ in
            let whole = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            found = whole.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
            return found != nil
        }
        return found
    }

    /// Waits until `condition` holds for the lines so far, looking every `interval`
    /// seconds (longer for a costly condition over many lines); false on timeout.
    func wait(timeout: Double = 10, interval: Double = 0.01, until condition: ([String]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(lines) { return true }
            Thread.sleep(forTimeInterval: interval)
        }
        return condition(lines)
    }
}

/// Whether `process` ends within `seconds` (looked at every 10 ms); it is left running if not.
func ends(_ process: Process, within seconds: Double) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning { return false }
    // Returns at once, and lets go of the child: until the launching thread's run loop runs
    // (it never does on the tests' threads) or this is called, Foundation holds on to an
    // ended Process, and so to its pipes. Polling alone kept 1,300 pipes open by the end of
    // a run, past where `Process.run` can crash (LaunchTests).
    process.waitUntilExit()
    return true
}

/// Starts `process` once `setUp` has made its pipes, both under one lock for the whole
/// process; returns what `setUp` made. Every child of these tests starts here.
///
/// Foundation's Process (Linux) learns that a child has ended when a socket only the child
/// holds closes, and keeps this process's other descriptors out of the child by closing, in
/// the child, those open a moment before the spawn. A pipe or such a socket that another
/// test's thread makes in that moment leaks into this child. While this child lives, that
/// test never sees its own child end, nor its pipe reach end of file. Two tests each waiting
/// on a child kept "alive" by the other's long-lived child hung a CI run for over an hour.
/// Under one lock, no pipe or spawn of another test falls inside that moment.
@discardableResult
func launch<T>(_ process: Process, _ setUp: () throws -> T) throws -> T {
    try launchLock.withLock {
        let made = try setUp()
        try process.run()
        ChildWatchdog.shared.watch(process)
        return made
    }
}

private let launchLock = NSLock()

/// Kills, and names on stderr, a child still running `limit` seconds after it started
/// (NEXUS_TEST_CHILD_SECONDS, 600 by default; no test's child lives two minutes). A test that
/// waits on a hung child then fails within minutes, and the log says which child, instead of
/// the run going on until CI's time runs out with nothing to show for it.
final class ChildWatchdog: @unchecked Sendable {
    static let shared = ChildWatchdog()
    private let lock = NSLock()
    /// Held weakly: a Process keeps its pipes open, and holding each ended child until the
    /// next look, up to 5 s on, would keep some 500 pipes open while LaunchTests starts its
    /// 110 children a second; Foundation's `Process.run` can crash past about 1,350.
    private struct Watched { weak var process: Process?; let started: Date }
    private var children: [Watched] = []
    private let limit = Double(ProcessInfo.processInfo.environment["NEXUS_TEST_CHILD_SECONDS"] ?? "") ?? 600

    private init() {
        Thread.detachNewThread { [self] in
            while true {
                Thread.sleep(forTimeInterval: min(5, limit / 4))
                let now = Date()
                let overdue = lock.withLock {
                    children.removeAll { !($0.process?.isRunning ?? false) }
                    let overdue = children.filter { now.timeIntervalSince($0.started) > limit }.compactMap(\.process)
                    children.removeAll { now.timeIntervalSince($0.started) > limit }
                    return overdue
                }
                for child in overdue {
                    let command = ([child.executableURL?.path ?? "?"] + (child.arguments ?? [])).joined(separator: " ")
                    FileHandle.standardError.write(Data("test watchdog: pid \(child.processIdentifier) still running after \(Int(limit)) s, killed: \(command)\n".utf8))
                    kill(child.processIdentifier, SIGKILL)
                }
            }
        }
    }

    func watch(_ process: Process) {
        lock.withLock { children.append(Watched(process: process, started: Date())) }
    }
}

/// `launch` for a child whose stdout, and stderr unless `err` is nil (then it is dropped),
/// are gathered as lines.
func launch(_ process: Process, out: LineCollector, err: LineCollector?) throws {
    try launch(process) {
        let stdout = Pipe()
        process.standardOutput = stdout
        out.attach(stdout)
        if let err {
            let stderr = Pipe()
            process.standardError = stderr
            err.attach(stderr)
        } else {
            process.standardError = FileHandle.nullDevice
        }
    }
}

/// Runs a helper program (found on $PATH unless `executable` is a path) to its end.
func runTool(_ executable: String, _ arguments: [String]) throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [executable] + arguments
    return try runToEnd(process)
}

/// Starts `process`, writes `stdin` to it (or nothing), and gathers what it prints until it exits.
func runToEnd(_ process: Process, stdin: String? = nil) throws -> Result {
    let (out, err, input) = try launch(process) {
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        return (out, err, input)
    }
    // stdin and stderr on other threads, so no pipe can fill up and stall the child: a
    // filter such as `send --each-line` prints while it still reads.
    // Threads of their own, not Dispatch's global workers: on Linux there are about as many
    // as cores, other tests block them, and a reader queued behind them would never drain
    // the pipe (a test then hangs until its time limit).
    let errBox = DataBox()
    let writer = input.fileHandleForWriting
    let written = DispatchSemaphore(value: 0), errRead = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        if let stdin { try? writer.write(contentsOf: Data(stdin.utf8)) }
        try? writer.close()
        written.signal()
    }
    defer { written.wait() }
    Thread.detachNewThread {
        errBox.data = err.fileHandleForReading.readDataToEndOfFile()
        errRead.signal()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    errRead.wait()
    process.waitUntilExit()
    return Result(
        code: process.terminationStatus, out: String(decoding: outData, as: UTF8.self), err: String(decoding: errBox.data, as: UTF8.self))
}

private final class DataBox: @unchecked Sendable {
    var data = Data()
}
