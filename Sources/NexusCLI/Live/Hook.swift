import LibC
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NexusCore

/// `tail -f --exec CMD`: runs CMD through /bin/sh for each incoming message, one at a
/// time and in order, as a terminal's stand-in for push notifications. The message's JSON
/// is on its stdin and its fields in NEXUS_* variables. Its output goes to our stderr, so
/// `--json` output stays pure. A hook that fails, or runs past the limit, is reported
/// and the tail goes on.
struct Hook {
    let command: String
    let context: CommandContext
    /// 30 s; NEXUS_HOOK_TIMEOUT_MS sets it in milliseconds, for tests only.
    var timeoutMs: Int

    init(command: String, context: CommandContext) {
        self.command = command
        self.context = context
        let asked = context.environment["NEXUS_HOOK_TIMEOUT_MS"].flatMap { Int($0) }
        timeoutMs = asked.map { min(max($0, 1), 30_000) } ?? 30_000
    }

    func run(_ message: Message, sender: User?, json: String) {
        var environment = context.environment
        environment["NEXUS_HOOK_TIMEOUT_MS"] = nil
        environment["NEXUS_PROFILE"] = context.profile.name
        environment["NEXUS_CONVERSATION_ID"] = String(message.conversationId)
        environment["NEXUS_MESSAGE_ID"] = String(message.id)
        environment["NEXUS_SEQ"] = String(message.seq)
        environment["NEXUS_LOCAL_ID"] = message.localId
        environment["NEXUS_SENDER_ID"] = String(message.senderId)
        environment["NEXUS_SENDER"] = sender?.email ?? ""
        environment["NEXUS_SENDER_NAME"] = sender?.displayName ?? ""
        environment["NEXUS_SENT_AT"] = message.sentAt.iso8601
        environment["NEXUS_TEXT"] = message.text

        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        guard pipe(&input) == 0 else { return report(message, "can't make a pipe") }
        guard pipe(&output) == 0 else {
            close(input[0]); close(input[1])
            return report(message, "can't make a pipe")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, output[1], 2)
        for fd in [input[0], input[1], output[0], output[1]] { posix_spawn_file_actions_addclose(&actions, fd) }
        // A process group of its own, so the kill at the limit reaches what the hook started too.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = [String](["/bin/sh", "-c", command]).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
        close(input[0])
        close(output[1])
        defer { close(output[0]) }
        guard rc == 0 else {
            close(input[1])
            return report(message, "can't start /bin/sh: \(String(cString: strerror(rc)))")
        }
        TerminationGuard.setChildGroup(pid)
        let status = supervise(pid: pid, stdin: input[1], output: output[0], bytes: Array((json + "\n").utf8))
        TerminationGuard.setChildGroup(0)
        switch status {
        case .timedOut: report(message, "did not finish in \(Self.describe(ms: timeoutMs)) and was killed")
        case .signaled(let signal): report(message, "was killed by signal \(signal)")
        case .exited(let code) where code != 0: report(message, "exited with status \(code)")
        case .exited: break
        }
    }

    private enum Outcome { case exited(Int32), signaled(Int32), timedOut }

    /// Feeds the hook its stdin and relays its output, without ever blocking on either, until
    /// it exits or the limit passes; then kills its process group.
    private func supervise(pid: pid_t, stdin: Int32, output: Int32, bytes: [UInt8]) -> Outcome {
        var stdin = stdin
        _ = fcntl(stdin, F_SETFL, fcntl(stdin, F_GETFL) | O_NONBLOCK)
        _ = fcntl(output, F_SETFL, fcntl(output, F_GETFL) | O_NONBLOCK)
        // A hook that exits without reading its stdin makes our write fail with EPIPE; that
        // must not end the tail.
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        var written = 0
        var relay = HookOutputRelay(context: context)
        let deadline = Self.nowMs() + Int64(timeoutMs)
        var status: Int32 = 0
        var outputEnded = false
        while true {
            if stdin >= 0 {
                let n = bytes.withUnsafeBytes { write(stdin, $0.baseAddress! + written, $0.count - written) }
                if n > 0 { written += n }
                if written == bytes.count || (n < 0 && errno != EAGAIN && errno != EINTR) {
                    close(stdin)
                    stdin = -1
                }
            }
            if !outputEnded { outputEnded = relay.drain(output) }
            if waitpid(pid, &status, WNOHANG) == pid {
                relay.drain(output)
                relay.finish()
                if stdin >= 0 { close(stdin) }
                // What the hook left running in the background is not ours to wait for.
                return (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
            }
            let left = deadline - Self.nowMs()
            if left <= 0 {
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                relay.drain(output)
                relay.finish()
                if stdin >= 0 { close(stdin) }
                return .timedOut
            }
            // A closed output would wake poll at once, again and again: leave it out then.
            var fds = outputEnded ? [] : [pollfd(fd: output, events: Int16(POLLIN), revents: 0)]
            if stdin >= 0 { fds.append(pollfd(fd: stdin, events: Int16(POLLOUT), revents: 0)) }
            // Short waits: the child's exit wakes no descriptor of ours when it leaves
            // children behind that hold the pipes.
            _ = poll(&fds, nfds_t(fds.count), Int32(min(left, 20)))
        }
    }

    private static func nowMs() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    private static func describe(ms: Int) -> String {
        ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms"
    }

    private func report(_ message: Message, _ what: String) {
        context.output.warn("--exec hook for message \(message.id) (seq \(message.seq) in conversation \(message.conversationId)) \(what)")
    }
}

/// Cuts what a hook prints into lines for `showHookOutput`.
struct HookOutputRelay {
    let context: CommandContext
    private var pending: [UInt8] = []

    init(context: CommandContext) { self.context = context }

    /// Reads what is there without waiting; true at the end of the output.
    @discardableResult
    mutating func drain(_ fd: Int32) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return n == 0 }
            pending += chunk[0..<n]
            while let nl = pending.firstIndex(of: 10) {
                showHookOutput(String(decoding: pending[..<nl], as: UTF8.self), context)
                pending.removeSubrange(...nl)
            }
        }
    }

    /// A last line without its newline.
    mutating func finish() {
        if !pending.isEmpty { showHookOutput(String(decoding: pending, as: UTF8.self), context) }
        pending = []
    }
}

/// The one way a hook's output (its stdout and stderr, a line at a time, without the
/// newline) reaches a person: on our stderr.
func showHookOutput(_ line: String, _ context: CommandContext) {
    // Hook output is other people's text (it often echoes the message): escaped like the rest.
    context.terminal.writeErr(TerminalText.escapeLine(line) + "\n")
}
