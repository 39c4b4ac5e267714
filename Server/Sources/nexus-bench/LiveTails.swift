import BenchSupport
import Foundation
import NexusCore
#if canImport(Glibc)
import Glibc
#endif

// Ten thousand live tails (issue 19, point 4): one nexusd holds 10,000 long polls of
// GET /v1/sync, the request `tail -f` makes (FeedFollower), 10 for each of 1,000 users,
// and one message reaches them all. 10,000 nexusctl processes would measure the machine,
// not nexusd, so the polls are raw sockets on one poll(2) thread of this process (Glibc's
// module has no epoll).
// Groups take at most 256 members (MembersController.maxMembers), so the 1,000 users are
// in 4 groups of 250 with one sender in each, and its 4 sends go back to back: each poll's
// latency runs from its own message's acknowledgement to its answer.

/// The polls: one socket each, read by one poll(2) thread, each answer timed as it completes.
final class TailPolls: @unchecked Sendable {
    private let lock = NSLock()
    private var fds: [Int32] = []
    private var watched: [pollfd] = []
    private var buffers: [[UInt8]] = []
    private(set) var answeredAt: [Double?] = []
    private(set) var status: [Int] = []
    private(set) var dropped = 0

    /// Opens one connection per request and sends it; the answers are read on a thread of their own.
    init(port: UInt16, requests: [String]) {
        for request in requests {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            precondition(fd >= 0, "socket: \(String(cString: strerror(errno))) (file-descriptor limit?)")
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = port.bigEndian
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            precondition(connected == 0, "connect: \(String(cString: strerror(errno)))")
            let bytes = Array(request.utf8)
            precondition(write(fd, bytes, bytes.count) == bytes.count, "write: \(String(cString: strerror(errno)))")
            fds.append(fd)
            watched.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
        }
        buffers = Array(repeating: [], count: fds.count)
        answeredAt = Array(repeating: nil, count: fds.count)
        status = Array(repeating: 0, count: fds.count)
        let thread = Thread { [self] in loop() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    var answered: Int { lock.lock(); defer { lock.unlock() }; return answeredAt.lazy.filter { $0 != nil }.count }

    func snapshot() -> (answeredAt: [Double?], status: [Int], dropped: Int) {
        lock.lock(); defer { lock.unlock() }
        return (answeredAt, status, dropped)
    }

    private func loop() {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !isStopped {
            let n = poll(&watched, nfds_t(watched.count), 200)
            if n < 0 && errno != EINTR { return }
            let t = now()
            for i in watched.indices where watched[i].revents != 0 {
                watched[i].revents = 0
                let got = read(fds[i], &chunk, chunk.count)
                lock.lock()
                if got > 0 {
                    buffers[i] += chunk[0..<got]
                    if answeredAt[i] == nil, let code = Self.complete(buffers[i]) {
                        answeredAt[i] = t
                        status[i] = code
                    }
                } else if got == 0 || (errno != EAGAIN && errno != EINTR) {
                    // Closed before its answer: that tail lost its poll. A close after the answer
                    // (not seen so far) would only cost a reconnection, and is not counted.
                    if answeredAt[i] == nil { dropped += 1 }
                    watched[i].fd = -1
                }
                lock.unlock()
            }
        }
    }

    /// The status code once a whole response (Content-Length or chunked) is in.
    private static func complete(_ b: [UInt8]) -> Int? {
        let text = String(decoding: b, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<end.lowerBound].lowercased()
        let body = text.utf8.count - text[..<end.upperBound].utf8.count
        let code = Int(head.split(separator: " ").dropFirst().first ?? "") ?? -1
        if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
           let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) {
            return body >= length ? code : nil
        }
        return text.hasSuffix("\r\n0\r\n\r\n") ? code : nil
    }

    private var stopped = false
    private var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }

    func close() {
        lock.lock()
        stopped = true
        lock.unlock()
        usleep(400_000)  // the thread's last poll(2) returns
        for fd in fds { Glibc.close(fd) }
    }
}

/// A value of nexusd's /proc/PID/status, in KiB ("VmHWM:", "VmRSS:").
func procStatusKiB(_ pid: pid_t, _ field: String) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return .nan }
    return Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan
}

func liveTailsMeasures() {
    let users = 1000, pollsPerUser = 10, groupSize = 250
    // 10,000 sockets here, and 10,000 in nexusd, which inherits this limit (it is per process).
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    guard limit.rlim_cur >= 10_500 else {
        report("10,000 live tails", "skipped: file-descriptor hard limit \(limit.rlim_max), needs 10,500 (ulimit -Hn)")
        return
    }
    // Cheap password hashes: 1,000 registrations at the default cost would take minutes.
    // The default of 16 polls per user (ServerLimits.pollsPerUser) already takes 10 each.
    let (tails, tailsURL) = startServer(db: work + "/tails.sqlite", extra: ["--bcrypt-cost", "4"])
    let tailsAddress = try! ServerAddress(parsing: tailsURL)
    let setupStart = now()
    let apis = (0..<users).map { _ in NexusAPI(address: tailsAddress) }
    _ = runClients(8) { c in
        for u in stride(from: c, to: users, by: 8) {
            apis[u].token = try! apis[u].register(email: "tail\(u)@bench.example", password: "benchmark-password", displayName: "tail \(u)").token
        }
    }
    // User 0 sends, and is in every group; users 1...999 are split among the groups.
    let groups = stride(from: 1, to: users, by: groupSize).map { first in
        try! apis[0].createGroup(with: (first..<min(first + groupSize, users)).map { "tail\($0)@bench.example" }, name: "tails \(first)").conversation.id
    }
    // Each thread writes its own users' slots only.
    let cursors = UnsafeMutableBufferPointer<(Int64, String?)>.allocate(capacity: users)
    cursors.initialize(repeating: (0, nil))
    _ = runClients(8) { c in
        for u in stride(from: c, to: users, by: 8) {
            let head = try! apis[u].sync(after: nil, last: 0)
            cursors[u] = (head.cursor, head.cursorCheck)
        }
    }
    let requests = (0..<users * pollsPerUser).map { p -> String in
        let u = p / pollsPerUser
        let check = cursors[u].1.map { "&check=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? ""
        return "GET /v1/sync?after=\(cursors[u].0)\(check)&wait=60 HTTP/1.1\r\nHost: \(tailsAddress.host)\r\n"
            + "Authorization: Bearer \(apis[u].token!)\r\nAccept: application/json\r\n\r\n"
    }
    cursors.deallocate()
    FileHandle.standardError.write(Data(String(format: "  (1,000 users and %d groups in %.1f s)\n", groups.count, now() - setupStart).utf8))

    let openStart = now()
    let polls = TailPolls(port: tailsAddress.port, requests: requests)
    let opened = now() - openStart
    // Settled: every poll read and waiting, which shows as nexusd's CPU going quiet.
    var cpu = cpuSeconds(of: tails.pid)
    repeat {
        usleep(1_000_000)
        let next = cpuSeconds(of: tails.pid)
        defer { cpu = next }
        if next - cpu < 0.05 { break }
    } while now() - openStart < 40
    let early = polls.answered
    let holdingRSS = procStatusKiB(tails.pid, "VmRSS:")
    FileHandle.standardError.write(Data(String(format: "  (10,000 polls opened in %.1f s, settled after %.1f s; %d answered early)\n", opened, now() - openStart, early).utf8))

    var ackedAt: [Double] = []
    let sendStart = now()
    for (g, conversation) in groups.enumerated() {
        _ = try! apis[0].send(conversationId: conversation, localId: "tails-\(g)", text: "to every tail")
        ackedAt.append(now())
    }
    let deadline = now() + 10
    while polls.answered < requests.count && now() < deadline { usleep(10_000) }
    let (answeredAt, status, dropped) = polls.snapshot()
    let peak = procStatusKiB(tails.pid, "VmHWM:")
    polls.close()
    stopServer(tails)

    var latencies: [Double] = []
    var errors = 0
    for p in 0..<requests.count {
        let u = p / pollsPerUser
        let group = u == 0 ? 0 : (u - 1) / groupSize
        // An answer before the first send carried no message: the poll did not hold.
        guard let t = answeredAt[p], status[p] == 200, t >= sendStart else { errors += 1; continue }
        latencies.append(max(0, t - ackedAt[group]) * 1000)
    }
    let p50 = percentile(latencies, 50), p99 = percentile(latencies, 99)
    report("10,000 live tails (1,000 users × 10): answered with the message", "\(latencies.count) of \(requests.count)")
    report("  delivery ack → each poll's answer, p50", ms(p50))
    report("  delivery ack → each poll's answer, p99", ms(p99), target: "≤ 100 ms", ok: p99 <= 100)
    report("  slowest poll", ms(latencies.max() ?? .nan))
    report("  nexusd RSS holding 10,000 polls", String(format: "%.0f MiB", holdingRSS / 1024))
    report("  nexusd peak RSS (VmHWM)", String(format: "%.0f MiB", peak / 1024), target: "≤ 512 MiB", ok: peak / 1024 <= 512)
    report("  errors (no answer, or not 200) and dropped connections", "\(errors) errors, \(dropped) dropped, \(early) early",
           target: "0", ok: errors == 0 && dropped == 0 && early == 0)
}
