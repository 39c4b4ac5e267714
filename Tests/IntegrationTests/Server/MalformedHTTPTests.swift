import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Malformed HTTP is the client's fault: the real nexusd answers 400 and closes the
/// connection, whether the parser refuses the headers or the body, in the API's JSON error
/// shape either way (docs/openapi.yaml's BadRequest), and a flood of such
/// requests (no token needed) writes no error line, only a rate-limited debug line.
@Suite(.harness)
struct MalformedHTTPTests {
    static let register = "POST /v1/register HTTP/1.1\r\nHost: x\r\n"
    /// Refused in the body, once the request reached a route: 400 `malformed_request`.
    static let inTheBody = [
        "bad chunk size": register + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
        "bad chunk end": register + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}XX\r\n0\r\n\r\n",
        "unknown transfer coding": register + "Transfer-Encoding: gzip\r\n\r\n0\r\n\r\n",
    ]
    /// Refused in the request line or headers, before any route, by the parser.
    static let inTheHead = [
        "request line over 8 KiB": "GET /v1/search?q=\(String(repeating: "x", count: 9000)) HTTP/1.1\r\nHost: x\r\n\r\n",
        "headers over 16 KiB": "GET /healthz HTTP/1.1\r\nHost: x\r\n"
            + (1...3).map { "X-Pad-\($0): \(String(repeating: "y", count: 6000))\r\n" }.joined() + "\r\n",
        "bad Content-Length": register + "Content-Length: 1x\r\n\r\n{}",
        "two Content-Lengths": register + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
        "bad header line": "GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n",
        "bad request line": "GET /healthz HTTP/1.1 extra\r\nHost: x\r\n\r\n",
    ]

    @Test func malformedRequestsGet400TheConnectionClosedAndNoErrorLine() throws {
        let server = try TestServer(logLevel: "debug")
        defer { server.stop() }
        for (name, request) in Self.inTheBody {
            let answer = try exchange(port: server.port, request)
            #expect(answer.closed, "\(name): the connection stayed open")
            #expect(answer.text.hasPrefix("HTTP/1.1 400 "), "\(name): \(answer.text)")
            #expect(answer.text.lowercased().contains("\r\nconnection: close\r\n"), "\(name): the answer does not say it closes: \(answer.text)")
            #expect(answer.text.contains(#""code":"malformed_request""#), "\(name): \(answer.text)")
        }
        for (name, request) in Self.inTheHead {
            let answer = try exchange(port: server.port, request)
            #expect(answer.closed, "\(name): the connection stayed open")
            #expect(answer.text.hasPrefix("HTTP/1.1 400 "), "\(name): \(answer.text)")
            #expect(answer.text.lowercased().contains("\r\nconnection: close\r\n"), "\(name): the answer does not say it closes: \(answer.text)")
            #expect(answer.text.lowercased().contains("\r\ncontent-type: application/json"), "\(name): \(answer.text)")
            #expect(answer.text.contains(#""code":"malformed_request""#), "\(name): \(answer.text)")
        }
        // A flood: at most one line every 10 s, at debug level.
        let start = Date()
        for _ in 0..<100 { _ = try exchange(port: server.port, Self.inTheBody["bad chunk size"]!) }
        let seconds = Date().timeIntervalSince(start)
        #expect(try exchange(port: server.port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").text.hasPrefix("HTTP/1.1 200 "))
        server.stop()

        let lines = server.log.text.split(separator: "\n")
        let errors = lines.filter { $0.contains(" error ") || $0.contains(" critical ") || $0.contains(" warning ") }
        #expect(errors.isEmpty, "\(errors.joined(separator: "\n"))")
        let malformed = lines.filter { $0.contains("malformed HTTP") }
        #expect(malformed.allSatisfy { $0.contains(" debug ") }, "\(malformed.joined(separator: "\n"))")
        #expect(!malformed.isEmpty && malformed.count <= 1 + Int(seconds / 10), "\(malformed.count) lines in \(seconds) s")
    }

    /// Sends `request` on a connection of its own; what came back within 10 s, and whether
    /// the server closed the connection by then.
    func exchange(port: Int, _ request: String) throws -> (text: String, closed: Bool) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw HarnessError("could not connect to nexusd: errno \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = Array(request.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received = [UInt8](), buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            // 0: the server closed; below 0: the timeout (or a reset, which closes too).
            if n == 0 || (n < 0 && errno == ECONNRESET) { return (String(decoding: received, as: UTF8.self), true) }
            if n < 0 { return (String(decoding: received, as: UTF8.self), false) }
            received += buffer[0..<n]
        }
    }
}
