import BenchSupport
import Foundation
import NexusCore
#if canImport(Glibc)
import Glibc
#endif

/// `send --each-line` as a stream (issue 14): 1,000 lines written one at a time, 10 ms
/// apart, into one nexusctl; each line's latency from its write to the line a real
/// `tail -f --json` of the recipient prints. NEXUS_BENCH_ONLY=stream runs only this.
func streamingSendMeasures(senderHome: String, tailHome: String, recipientEmail: String) {
    var tailEnv = baseEnv
    tailEnv["NEXUS_HOME"] = tailHome
    tailEnv["NEXUS_SERVER"] = url
    let tailer = spawn(nexusctl, ["tail", "-f", "--json", "-n", "0"], env: tailEnv, captureStdout: true)
    final class Times: @unchecked Sendable {
        let lock = NSLock()
        var printedAt: [String: Double] = [:]
    }
    let times = Times()
    let reader = Thread {
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(tailer.stdout!, &buffer, buffer.count)
            if n <= 0 { return }
            let t = now()
            pending += buffer[0..<n]
            while let nl = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<nl], as: UTF8.self)
                pending.removeSubrange(...nl)
                if let r = line.range(of: "\"text\":\"") {
                    let text = line[r.upperBound...].prefix { $0 != "\"" }
                    times.lock.lock()
                    times.printedAt[String(text)] = t
                    times.lock.unlock()
                }
            }
        }
    }
    reader.start()
    usleep(500_000)  // let tail -f settle into its long-poll

    // The streaming sender, with a stdin pipe that stays open.
    var sendEnv = baseEnv
    sendEnv["NEXUS_HOME"] = senderHome
    sendEnv["NEXUS_SERVER"] = url
    var inPipe: [Int32] = [-1, -1]
    pipe(&inPipe)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
    posix_spawn_file_actions_addclose(&actions, inPipe[1])
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let words: [String] = [nexusctl, "send", recipientEmail, "--each-line"]
    let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = sendEnv.map { strdup("\($0.key)=\($0.value)") } + [nil]
    var pid: pid_t = 0
    precondition(posix_spawn(&pid, nexusctl, &actions, nil, argv, envp) == 0, "can't start nexusctl")
    posix_spawn_file_actions_destroy(&actions)
    argv.forEach { free($0) }
    envp.forEach { free($0) }
    close(inPipe[0])

    let count = 1000
    var writtenAt: [Double] = []
    for i in 0..<count {
        let line = "stream line \(i)\n"
        writtenAt.append(now())
        _ = line.withCString { write(inPipe[1], $0, strlen($0)) }
        usleep(10_000)
    }
    close(inPipe[1])
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let deadline = now() + 10
    var latencies: [Double] = []
    for i in 0..<count {
        var seen: Double?
        while seen == nil && now() < deadline {
            times.lock.lock()
            seen = times.printedAt["stream line \(i)"]
            times.lock.unlock()
            if seen == nil { usleep(1000) }
        }
        latencies.append(((seen ?? deadline) - writtenAt[i]) * 1000)
    }
    kill(tailer.pid, SIGTERM)
    _ = reap(tailer)
    let p50 = percentile(latencies, 50), p99 = percentile(latencies, 99)
    report("send --each-line: line written → tail -f prints, p50 (1,000 lines, 10 ms apart)", ms(p50), target: "≤ 100 ms", ok: p50 <= 100)
    report("send --each-line: line written → tail -f prints, p99 (1,000 lines, 10 ms apart)", ms(p99), target: "≤ 100 ms", ok: p99 <= 100)
}
