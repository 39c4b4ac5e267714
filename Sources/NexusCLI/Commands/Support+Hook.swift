#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NexusCore

/// `tail -f --exec CMD`: runs CMD through /bin/sh for each incoming message, one at a
/// time and in order, as a terminal's stand-in for push notifications. The message's JSON
/// is on its stdin and its fields in NEXUS_* variables. Its stdout goes to our stderr, so
/// `--json` output stays pure. A hook that fails, or runs past the timeout, is reported
/// and the tail goes on.
struct Hook {
    let command: String
    let context: CommandContext
    var timeoutSeconds = 30

    func run(_ message: Message, sender: User?, json: String) {
        var environment = context.environment
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
        guard pipe(&input) == 0 else { return report(message, "can't make a pipe") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_addclose(&actions, input[1])
        posix_spawn_file_actions_adddup2(&actions, 2, 1)
        let argv: [UnsafeMutablePointer<CChar>?] = [String]([ "/bin/sh", "-c", command]).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp)
        close(input[0])
        guard rc == 0 else {
            close(input[1])
            return report(message, "can't start /bin/sh: \(String(cString: strerror(rc)))")
        }
        // A hook that does not read its stdin must not block us: ignore EPIPE for this write.
        let previous = signal(SIGPIPE, SIG_IGN)
        let bytes = Array((json + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(input[1], $0.baseAddress, $0.count) }
        close(input[1])
        signal(SIGPIPE, previous)

        var status: Int32 = 0
        var waited = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if waited >= timeoutSeconds * 100 {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return report(message, "did not finish in \(timeoutSeconds) s and was killed")
            }
            usleep(10_000)
            waited += 1
        }
        let exited = (status & 0x7f) == 0
        let code = (status >> 8) & 0xff
        if !exited {
            report(message, "was killed by signal \(status & 0x7f)")
        } else if code != 0 {
            report(message, "exited with status \(code)")
        }
    }

    private func report(_ message: Message, _ what: String) {
        context.output.warn("--exec hook for message \(message.id) (seq \(message.seq) in conversation \(message.conversationId)) \(what)")
    }
}
