import BenchSupport
import Foundation
import NexusCore
#if canImport(Glibc)
import Glibc
#endif

// MARK: `nexusctl chat` in a pseudo-terminal (NEXUS_BENCH_ONLY=chat)

/// A chat running on a pty of its own: what it draws is read from the master side, keys
/// are written to it.
final class ChatPane {
    let pid: pid_t
    private let master: Int32
    private(set) var screen: [UInt8] = []

    init(home: String, server: String, args: [String] = [], rows: UInt16 = 40, columns: UInt16 = 120) {
        // posix_openpt and its kin are not in Swift's Glibc: the same by hand, as Linux
        // defines them (TIOCSPTLCK unlocks the slave, TIOCGPTN names it).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0, number: UInt32 = 0
        precondition(master >= 0 && ioctl(master, 0x4004_5431, &unlock) == 0 && ioctl(master, 0x8004_5430, &number) == 0, "no pseudo-terminal")
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        let slave = "/dev/pts/\(number)"
        var env = baseEnv
        env["NEXUS_HOME"] = home
        env["NEXUS_SERVER"] = server
        env["TERM"] = "xterm-256color"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        for fd: Int32 in [0, 1] { posix_spawn_file_actions_addopen(&actions, fd, slave, O_RDWR, 0) }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, master)
        let words = [nexusctl, "chat"] + args
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        var child: pid_t = 0
        precondition(posix_spawn(&child, nexusctl, &actions, nil, argv, envp) == 0, "can't start nexusctl chat")
        posix_spawn_file_actions_destroy(&actions)
        argv.forEach { free($0) }
        envp.forEach { free($0) }
        pid = child
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
    }

    /// Reads what it drew until `text` appears after `from` (a position in `screen`); the
    /// time it did, or nil by `deadline`.
    func wait(for text: String, from: Int, until deadline: Double) -> Double? {
        let needle = Array(text.utf8)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while now() < deadline {
            var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            _ = poll(&fds, 1, 20)
            while true {
                let n = read(master, &buffer, buffer.count)
                if n <= 0 { break }
                screen += buffer[0..<n]
            }
            if Self.contains(screen, needle, from: max(0, from - needle.count)) { return now() }
        }
        return nil
    }

    func type(_ text: String) { _ = text.withCString { write(master, $0, strlen($0)) } }

    /// SIGTERM, reading what it writes meanwhile (a full pty would hold its last frame and
    /// the terminal's restore, and so its exit); SIGKILL after 5 s.
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = now() + 5
        while waitpid(pid, &status, WNOHANG) == 0 {
            while read(master, &buffer, buffer.count) > 0 {}
            if now() > deadline { kill(pid, SIGKILL) }
            usleep(2000)
        }
        close(master)
    }

    private static func contains(_ hay: [UInt8], _ needle: [UInt8], from: Int) -> Bool {
        guard hay.count >= needle.count, from <= hay.count - needle.count else { return false }
        for i in from...(hay.count - needle.count) where hay[i] == needle[0] && Array(hay[i..<i + needle.count]) == needle { return true }
        return false
    }
}

func chatMeasures() {
    let (bobAPI, c, bobHome, aliceHome) = makePair("chat-bob", "chat-alice")
    _ = try! bobAPI.send(conversationId: c, localId: "chat-first", text: "hello from bob")

    // First frame from a warm cache: the list, drawn after a run that filled the cache.
    let warm = ChatPane(home: aliceHome, server: url)
    _ = warm.wait(for: "chat-bob", from: 0, until: now() + 10)
    warm.stop()
    let firsts = (0..<10).map { _ -> Double in
        let start = now()
        let pane = ChatPane(home: aliceHome, server: url)
        let at = pane.wait(for: "Conversations", from: 0, until: start + 10) ?? start + 10
        pane.stop()
        return (at - start) * 1000
    }
    let first = percentile(firsts, 50)
    report("nexusctl chat: first frame from a warm cache (median of 10)", ms(first), target: "≤ 50 ms", ok: first <= 50)

    // Keystroke to frame, on the chat screen: each key's echo on the line.
    let pane = ChatPane(home: aliceHome, server: url, args: [String(c)])
    _ = pane.wait(for: "hello from bob", from: 0, until: now() + 10)
    var keys: [Double] = []
    var line = ""
    for i in 0..<300 {
        let mark = pane.screen.count
        let letter = String(UnicodeScalar(UInt8(97 + i % 26)))
        line += letter
        let start = now()
        pane.type(letter)
        // The frame is drawn once the line shows the key.
        let at = pane.wait(for: "> " + line, from: mark, until: start + 2) ?? start + 2
        keys.append((at - start) * 1000)
        if i % 50 == 49 {
            // Ctrl-U, so the line stays short; its frame before the next key.
            let cleared = pane.screen.count
            pane.type("\u{15}")
            _ = pane.wait(for: "Ctrl-N next unread", from: cleared, until: now() + 2)
            line = ""
        }
    }
    pane.type("\u{15}")
    let keyP99 = percentile(keys, 99)
    report("nexusctl chat: keystroke → frame, p50 / p99 (300 keys)", String(format: "%.2f / %.2f ms", percentile(keys, 50), keyP99),
           target: "p99 ≤ 16 ms", ok: keyP99 <= 16)

    // Another user's message acknowledged → on the open chat's screen.
    var arrivals: [Double] = []
    for i in 0..<100 {
        let mark = pane.screen.count
        let text = "arrival \(i) z"
        _ = try! bobAPI.send(conversationId: c, localId: "arrival-\(i)", text: text)
        let acked = now()
        let at = pane.wait(for: text, from: mark, until: acked + 5) ?? acked + 5
        arrivals.append((at - acked) * 1000)
    }
    let arrivalP99 = percentile(arrivals, 99)
    report("nexusctl chat: message acknowledged → on screen, p50 / p99 (100)", String(format: "%.2f / %.2f ms", percentile(arrivals, 50), arrivalP99),
           target: "p99 ≤ 50 ms", ok: arrivalP99 <= 50)

    // Idle: no busy redraw.
    let idleSeconds = Double(ProcessInfo.processInfo.environment["NEXUS_BENCH_CHAT_IDLE"] ?? "60") ?? 60
    let cpuBefore = cpuSeconds(of: pane.pid), idleStart = now()
    usleep(UInt32(idleSeconds * 1_000_000))
    let idle = (cpuSeconds(of: pane.pid) - cpuBefore) / (now() - idleStart) * 100
    report(String(format: "nexusctl chat: idle on a chat screen for %.0f s, CPU", idleSeconds), String(format: "%.2f %% of a core", idle),
           target: "≤ 1 %", ok: idle <= 1)
    pane.stop()

    // A 100,000-message conversation opened and scrolled 20 pages back.
    let (bigAPI, big, _, bigHome) = makePair("chat-carol", "chat-dave")
    for b in 0..<200 {
        _ = try! bigAPI.sendBatch((0..<500).map { BatchItem(conversationId: big, localId: "big-\(b)-\($0)", text: "line \(b * 500 + $0) of a long conversation") })
    }
    FileHandle.standardError.write(Data("  (filled 100,000 messages)\n".utf8))
    let long = ChatPane(home: bigHome, server: url, args: [String(big)])
    _ = long.wait(for: "line 99999 of", from: 0, until: now() + 20)
    for _ in 0..<20 {
        let mark = long.screen.count
        long.type("\u{1B}[5~")
        _ = long.wait(for: "of a long", from: mark, until: now() + 5)
    }
    let rss = procStatusKiB(long.pid, "VmHWM") / 1024
    long.stop()
    report("nexusctl chat: 100,000-message conversation, 20 pages scrolled, peak RSS", String(format: "%.1f MiB", rss),
           target: "≤ 40 MiB", ok: rss <= 40)
}
