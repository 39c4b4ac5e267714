import BenchSupport
import Foundation
import TailEpoll
#if canImport(Glibc)
import Glibc
#endif

/// The polls: one socket each, read by one thread through epoll, each answer timed when
/// the wake-up that brought its last bytes returns. With `usePoll` (as the bench was before
/// epoll), poll(2) instead: it scans all 10,000 descriptors at every call, which on
/// 2 cores took CPU from the nexusd being measured while the answers came in.
final class TailPolls: @unchecked Sendable {
    private let lock = NSLock()
    private var fds: [Int32] = []
    private var watched: [pollfd] = []
    private var buffers: [[UInt8]] = []
    private(set) var answeredAt: [Double?] = []
    private(set) var status: [Int] = []
    private(set) var dropped = 0
    private var requests: [[UInt8]] = []
    /// Until the first send, a poll that answers (its wait ran out: opening 10,000 on a
    /// loaded machine can take over a minute) asks again on its connection, as `tail -f` does.
    private var rearming = true
    private(set) var renewed = 0

    /// nil with `usePoll`.
    private let epoll: Int32?

    /// Opens one connection per request and sends it; the answers are read on a thread of their own.
    init(port: UInt16, requests: [String], usePoll: Bool = false) {
        epoll = usePoll ? nil : tail_epoll_create()
        if let epoll, epoll < 0 { fatalError("epoll_create1: \(String(cString: strerror(errno)))") }
        for request in requests {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            if fd < 0 { fatalError("socket: \(String(cString: strerror(errno))) (file-descriptor limit?)") }
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = port.bigEndian
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if connected != 0 { fatalError("connect: \(String(cString: strerror(errno)))") }
            let bytes = Array(request.utf8)
            precondition(write(fd, bytes, bytes.count) == bytes.count, "write: \(String(cString: strerror(errno)))")
            self.requests.append(bytes)
            if let epoll {
                if tail_epoll_add(epoll, fd, UInt32(fds.count)) != 0 { fatalError("epoll_ctl: \(String(cString: strerror(errno)))") }
            }
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

    /// From now on an answer is the one measured (call before the first send).
    func stopRearming() -> Int {
        lock.lock(); defer { lock.unlock() }
        rearming = false
        return renewed
    }

    private var answeredCount = 0
    var answered: Int { lock.lock(); defer { lock.unlock() }; return answeredCount }

    func snapshot() -> (answeredAt: [Double?], status: [Int], dropped: Int) {
        lock.lock(); defer { lock.unlock() }
        return (answeredAt, status, dropped)
    }

    private func loop() {
        var chunk = [UInt8](repeating: 0, count: 65536)
        var tags = [UInt32](repeating: 0, count: 1024)
        var ready: [Int] = []
        while !isStopped {
            ready.removeAll(keepingCapacity: true)
            if let epoll {
                let n = tail_epoll_wait(epoll, &tags, Int32(tags.count), 200)
                if n < 0 && errno != EINTR { return }
                for k in 0..<max(0, Int(n)) { ready.append(Int(tags[k])) }
            } else {
                let n = poll(&watched, nfds_t(watched.count), 200)
                if n < 0 && errno != EINTR { return }
                for i in watched.indices where watched[i].revents != 0 {
                    watched[i].revents = 0
                    ready.append(i)
                }
            }
            // The answers of this wake-up arrived by now: reading and parsing them is ours.
            let t = now()
            for i in ready { take(i, chunk: &chunk, at: t) }
        }
    }

    private func take(_ i: Int, chunk: inout [UInt8], at t: Double) {
        let got = read(fds[i], &chunk, chunk.count)
        lock.lock()
        defer { lock.unlock() }
        if got > 0 {
            // Most answers come in one read: parsed where they landed, not copied first.
            let code: Int?
            if buffers[i].isEmpty {
                code = chunk.withUnsafeBufferPointer { Self.complete(UnsafeBufferPointer(rebasing: $0[0..<got])) }
                if code == nil { buffers[i] = Array(chunk[0..<got]) }
            } else {
                buffers[i] += chunk[0..<got]
                code = buffers[i].withUnsafeBufferPointer { Self.complete($0) }
            }
            if answeredAt[i] == nil, let code {
                buffers[i] = []
                if rearming && code == 200 {
                    renewed += 1
                    precondition(write(fds[i], requests[i], requests[i].count) == requests[i].count, "write: \(String(cString: strerror(errno)))")
                } else {
                    answeredAt[i] = t
                    status[i] = code
                    answeredCount += 1
                }
            }
        } else if got == 0 || (errno != EAGAIN && errno != EINTR) {
            // Closed before its answer: that tail lost its poll. A close after the answer
            // (not seen so far) would only cost a reconnection, and is not counted.
            if answeredAt[i] == nil { dropped += 1 }
            if let epoll { _ = tail_epoll_remove(epoll, fds[i]) } else { watched[i].fd = -1 }
        }
    }

    /// The status code once a whole response (Content-Length or chunked) is in. Read on the
    /// bytes: this thread shares the 2 cores with the nexusd it measures, and parsing 10,000
    /// answers through String cost it about 25 µs each (a quarter of nexusd's own per poll).
    private static func complete(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        guard b.count >= 16 else { return nil }
        var end = -1
        for k in 0...(b.count - 4) where b[k] == cr && b[k + 1] == lf && b[k + 2] == cr && b[k + 3] == lf {
            end = k
            break
        }
        guard end >= 12 else { return nil }
        var code = 0
        for k in 9..<12 {
            guard (48...57).contains(b[k]) else { return -1 }
            code = code * 10 + Int(b[k] - 48)
        }
        let name = Self.contentLength
        var line = 0
        while line < end {
            var next = line
            while next < end && b[next] != cr { next += 1 }
            if next - line > name.count, (0..<name.count).allSatisfy({ b[line + $0] | 0x20 == name[$0] | 0x20 }) {
                var length = 0, k = line + name.count
                while k < next && b[k] == UInt8(ascii: " ") { k += 1 }
                while k < next, (48...57).contains(b[k]) { length = length * 10 + Int(b[k] - 48); k += 1 }
                return b.count - (end + 4) >= length ? code : nil
            }
            line = next + 2
        }
        let last = Self.chunkedEnd
        return b.count >= last.count && b.suffix(last.count).elementsEqual(last) ? code : nil
    }

    private static let contentLength = Array("content-length:".utf8)
    private static let chunkedEnd = Array("\r\n0\r\n\r\n".utf8)

    private var stopped = false
    private var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }

    func close() {
        lock.lock()
        stopped = true
        lock.unlock()
        usleep(400_000)  // the thread's last poll(2) returns
        for fd in fds { Glibc.close(fd) }
        if let epoll { Glibc.close(epoll) }
    }
}

/// A value of nexusd's /proc/PID/status, in KiB ("VmHWM:", "VmRSS:").
func procStatusKiB(_ pid: pid_t, _ field: String) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return .nan }
    return Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan
}
