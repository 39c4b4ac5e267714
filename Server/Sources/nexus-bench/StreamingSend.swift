import BenchSupport
import Foundation
import NexusCore
#if canImport(Glibc)
import Glibc
#endif

/// `send --each-line` as a stream: 1,000 lines written one at a time, 10 ms
/// apart, into one nexusctl; each line's latency from its write to the line a real
/// `tail -f --json` of the recipient prints. NEXUS_BENCH_ONLY=stream runs only this.
func streamingSendMeasures(senderHome: String, tailHome: String, recipientEmail: String) {
    let tail = TailTimer(home: tailHome, server: url, field: "text")

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
        let seen = tail.printed("stream line \(i)", until: deadline, poll: 1000)
        latencies.append(((seen ?? deadline) - writtenAt[i]) * 1000)
    }
    tail.stop()
    let p50 = percentile(latencies, 50), p99 = percentile(latencies, 99)
    report("send --each-line: line written → tail -f prints, p50 (1,000 lines, 10 ms apart)", ms(p50), target: "≤ 100 ms", ok: p50 <= 100)
    report("send --each-line: line written → tail -f prints, p99 (1,000 lines, 10 ms apart)", ms(p99), target: "≤ 100 ms", ok: p99 <= 100)
}
