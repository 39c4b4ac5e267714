import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with posix_spawn, waited for with wait4, so the timings carry
/// no Foundation run-loop overhead and the peak memory comes from the kernel.
public struct Spawned: Sendable {
    public var pid: pid_t
    /// The read end of the child's stdout, when captured.
    public var stdout: Int32?
}

/// Starts `path`; its stdout goes to a pipe (`captureStdout`), to the file `stdoutPath`
/// (appended to), or to /dev/null.
public func spawn(
    _ path: String, _ args: [String], env: [String: String], captureStdout: Bool = false, stdoutPath: String? = nil,
    stdinText: String? = nil
) -> Spawned {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var outPipe: [Int32] = [-1, -1]
    var inPipe: [Int32] = [-1, -1]
    if captureStdout {
        pipe(&outPipe)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_addclose(&actions, outPipe[0])
    } else {
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
    }
    if stdinText != nil {
        pipe(&inPipe)
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_addclose(&actions, inPipe[1])
    } else {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([path] + args).map { strdup($0) } + [nil]
    let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, path, &actions, nil, argv, envp)
    precondition(rc == 0, "can't start \(path): \(String(cString: strerror(rc)))")
    if captureStdout { close(outPipe[1]) }
    if let stdinText {
        close(inPipe[0])
        _ = stdinText.withCString { write(inPipe[1], $0, strlen($0)) }
        close(inPipe[1])
    }
    return Spawned(pid: pid, stdout: captureStdout ? outPipe[0] : nil)
}

/// Waits for the child; returns its exit status and peak resident memory in KiB.
public func reap(_ child: Spawned) -> (status: Int32, maxRSSKiB: Int) {
    var status: Int32 = 0
    var usage = rusage()
    while wait4(child.pid, &status, 0, &usage) < 0 && errno == EINTR {}
    return ((status >> 8) & 0xff, Int(usage.ru_maxrss))
}

public func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Runs a command to completion `runs` times; wall times in ms. With `peak`, also the
/// command's peak RSS, from one more run through nexus-peak (the timed runs' own ru_maxrss
/// would carry nexus-bench's peak: see Sources/nexus-peak/main.c); nil without. With
/// `peakOfTimedRun`, a single run, timed through nexus-peak (its fork costs well under a
/// millisecond), which gives both: for runs too long to repeat.
public func timeCommand(_ path: String, _ args: [String], env: [String: String], runs: Int, stdinText: String? = nil,
                        expectStatus: Int32 = 0, peak: Bool = false, peakOfTimedRun: Bool = false) -> (ms: [Double], maxRSSKiB: Int?) {
    if peakOfTimedRun {
        let start = now()
        let kib = peakRSSKiB(path, args, env: env, stdinText: stdinText, expectStatus: expectStatus)
        return ([(now() - start) * 1000], kib)
    }
    var times: [Double] = []
    for _ in 0..<runs {
        let start = now()
        let child = spawn(path, args, env: env, stdinText: stdinText)
        let (status, _) = reap(child)
        times.append((now() - start) * 1000)
        precondition(status == expectStatus, "\(path) \(args.joined(separator: " ")) exited \(status)")
    }
    return (times, peak ? peakRSSKiB(path, args, env: env, stdinText: stdinText, expectStatus: expectStatus) : nil)
}

/// One run of the command through nexus-peak, built beside nexus-bench; its peak RSS in KiB.
public func peakRSSKiB(_ path: String, _ args: [String], env: [String: String], stdinText: String? = nil,
                       expectStatus: Int32 = 0) -> Int {
    let bench = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let peak = URL(fileURLWithPath: bench).deletingLastPathComponent().appendingPathComponent("nexus-peak").path
    precondition(FileManager.default.isExecutableFile(atPath: peak),
                 "\(peak) is missing: build it with `swift build -c release --package-path Server --product nexus-peak`")
    let out = NSTemporaryDirectory() + "nexus-peak-\(getpid())"
    defer { unlink(out) }
    let (status, _) = reap(spawn(peak, [out, path] + args, env: env, stdinText: stdinText))
    precondition(status == expectStatus, "\(path) \(args.joined(separator: " ")) exited \(status) (through nexus-peak)")
    return Int((try? String(contentsOfFile: out, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
}

public func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let index = min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))
    return sorted[index]
}
