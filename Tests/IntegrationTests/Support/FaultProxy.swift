import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy in front of the real nexusd that can answer the next requests itself
/// with an error (a 503, a 429 with Retry-After), the way a load balancer or an
/// overloaded server would. Everything else passes through to nexusd untouched, at most
/// `uploadBytesPerSecond` towards nexusd and `downloadBytesPerSecond` back if given: a slow
/// link, so a test can watch an upload or a download under way however fast the machine is.
final class FaultProxy: @unchecked Sendable {
    private let listener: Int32
    let port: Int
    private let upstreamPort: Int
    private let uploadBytesPerSecond: Int?
    private let downloadBytesPerSecond: Int?
    private let lock = NSLock()
    private var faults: [(status: Int, headers: String, body: String)] = []
    private(set) var faultsServed = 0
    private var holdNext = false
    private var held: [UInt8]?
    private let gate = DispatchSemaphore(value: 0)
    private var isCut = false
    private var open: [Int: Int32] = [:]
    private var opened = 0
    /// Connections turned away while cut, as the client tried again.
    private(set) var refused = 0

    var url: String { "http://127.0.0.1:\(port)" }

    init(upstreamPort: Int, uploadBytesPerSecond: Int? = nil, downloadBytesPerSecond: Int? = nil) throws {
        self.upstreamPort = upstreamPort
        self.uploadBytesPerSecond = uploadBytesPerSecond
        self.downloadBytesPerSecond = downloadBytesPerSecond
        // Close-on-exec, as every socket here: one leaked into another test's child would
        // stay open after we close it, and the other end would never see the hang-up.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.listener = listener
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw HarnessError("proxy can't listen") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &len) }
        }
        self.port = Int(UInt16(bigEndian: addr.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The next `count` requests get this answer instead of reaching nexusd.
    func fail(next count: Int, status: Int, headers: String = "", body: String = "") {
        lock.lock()
        defer { lock.unlock() }
        for _ in 0..<count { faults.append((status, headers, body)) }
    }

    /// The next request that passes through waits in the proxy, before nexusd sees it,
    /// until `release()`: a request in flight for as long as a test needs.
    func holdNextRequest() {
        lock.lock()
        defer { lock.unlock() }
        holdNext = true
    }

    /// The head of the request being held, once it is.
    var heldRequest: String? {
        lock.lock()
        defer { lock.unlock() }
        return held.map { String(decoding: $0, as: UTF8.self) }
    }

    func release() { gate.signal() }

    /// The network goes away: the connections through the proxy are cut, and each new one
    /// is closed as soon as it comes, until `restore()`.
    func cut() {
        lock.lock()
        defer { lock.unlock() }
        isCut = true
        for fd in open.values { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    func restore() {
        lock.lock()
        defer { lock.unlock() }
        isCut = false
    }

    var refusedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return refused
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)  // Glibc's module has no accept4
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        lock.lock()
        let turnedAway = isCut
        opened += 1
        let token = opened
        if turnedAway { refused += 1 } else { open[token] = client }
        lock.unlock()
        if turnedAway { close(client); return }
        defer { lock.withLock { _ = open.removeValue(forKey: token) } }
        // Read one request head (and its body) to decide.
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !containsHeadEnd(request) {
            let n = read(client, &buffer, buffer.count)
            if n <= 0 { close(client); return }
            request += buffer[0..<n]
        }
        lock.lock()
        let fault = faults.isEmpty ? nil : faults.removeFirst()
        if fault != nil { faultsServed += 1 }
        lock.unlock()
        if let fault {
            let head = String(decoding: request, as: UTF8.self)
            let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            let headEnd = request.firstRange(of: [13, 10, 13, 10])!.upperBound
            var have = request.count - headEnd
            while have < length {
                let n = read(client, &buffer, buffer.count)
                if n <= 0 { break }
                have += n
            }
            let response = "HTTP/1.1 \(fault.status) Fault\r\nContent-Type: application/json\r\nContent-Length: \(fault.body.utf8.count)\r\nConnection: close\r\n\(fault.headers)\r\n\(fault.body)"
            _ = response.withCString { write(client, $0, strlen($0)) }
            close(client)
            return
        }
        lock.lock()
        let hold = holdNext
        holdNext = false
        if hold { held = request }
        lock.unlock()
        if hold { gate.wait() }
        // Pass through: this connection and the rest of it go to nexusd.
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(upstreamPort).bigEndian
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(client); close(upstream); return }
        _ = request.withUnsafeBytes { write(upstream, $0.baseAddress, $0.count) }
        let back = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [downloadBytesPerSecond] in
            pump(from: upstream, to: client, bytesPerSecond: downloadBytesPerSecond)
            back.signal()
        }
        pump(from: client, to: upstream, bytesPerSecond: uploadBytesPerSecond)
        back.wait()
        close(client)
        close(upstream)
    }

    private func containsHeadEnd(_ bytes: [UInt8]) -> Bool {
        bytes.firstRange(of: [13, 10, 13, 10]) != nil
    }
}

private func pump(from source: Int32, to destination: Int32, bytesPerSecond: Int? = nil) {
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(source, &buffer, buffer.count)
        if n <= 0 { break }
        if let bytesPerSecond { usleep(useconds_t(n * 1_000_000 / bytesPerSecond)) }
        var done = 0
        while done < n {
            let w = buffer.withUnsafeBytes { write(destination, $0.baseAddress! + done, n - done) }
            if w <= 0 { break }
            done += w
        }
    }
    shutdown(destination, Int32(SHUT_WR))
    shutdown(source, Int32(SHUT_RD))
}
