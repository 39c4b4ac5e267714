import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to a live test server, for what an HTTP client library would
/// not send or would hide: oversized headers, a silent connection, the server's close.
final class RawConnection: @unchecked Sendable {
    private let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { close(fd); throw RawConnectionError("connect failed: errno \(errno)") }
    }

    deinit { close(fd) }

    /// Registers alice over a connection of its own; her token.
    static func register(port: Int) async throws -> Substring {
        let body = #"{"email":"alice@example.com","password":"correct horse"}"#
        let register = try RawConnection(port: port)
        register.send("POST /v1/register HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body)
        let registered = try #require(await register.readUntilClosed(timeout: 5))
        return try #require(registered.firstMatch(of: /nx_[0-9a-f]{64}/)).output
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    /// Everything the server sends until it closes the connection, or nil when it is still
    /// open after `timeout` seconds. The blocking reads run on a thread of their own: on
    /// the concurrency pool they would starve the in-process servers of other tests.
    func readUntilClosed(timeout: Double) async -> String? {
        let (text, _, closed) = await collect(timeout: timeout) { _ in false }
        return closed ? text : nil
    }

    /// What the server has sent once `done` holds for it, or nil if it does not within
    /// `timeout` seconds (or the connection closes first). For keep-alive connections.
    func read(timeout: Double, until done: @escaping @Sendable (String) -> Bool) async -> String? {
        let (text, finished, _) = await collect(timeout: timeout, until: done)
        return finished ? text : nil
    }

    /// Everything sent within `seconds` (to see that nothing came yet).
    func drain(for seconds: Double) async -> String {
        await collect(timeout: seconds) { _ in false }.text
    }

    /// Ends the connection as a killed client's would end.
    func hangUp() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// What came within `timeout` seconds, stopping early once `done` holds or the server
    /// closes the connection (a read error counts as closed).
    private func collect(timeout: Double, until done: @escaping @Sendable (String) -> Bool) async -> (text: String, done: Bool, closed: Bool) {
        await withCheckedContinuation { continuation in
            Thread {
                var tv = timeval(tv_sec: 0, tv_usec: 50_000)
                setsockopt(self.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                var data = [UInt8]()
                var buffer = [UInt8](repeating: 0, count: 65_536)
                var closed = false
                let deadline = Date().addingTimeInterval(timeout)
                while Date() < deadline {
                    let n = recv(self.fd, &buffer, buffer.count, 0)
                    if n > 0 {
                        data += buffer[0..<n]
                        if done(String(decoding: data, as: UTF8.self)) { break }
                    } else if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                        closed = true
                        break
                    }
                }
                let text = String(decoding: data, as: UTF8.self)
                continuation.resume(returning: (text, done(text), closed))
            }.start()
        }
    }
}

struct RawConnectionError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
