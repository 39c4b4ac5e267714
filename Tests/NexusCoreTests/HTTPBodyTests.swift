#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import NexusCore
import Testing

/// A body with a Content-Length is read from the socket straight into its own array
/// (HTTPClient.readBody): whatever part of it came with the headers, however the rest
/// is split, and an answer cut short is an error, not a short body.
struct HTTPBodyTests {
    /// A loopback server that answers its first request with `pieces`, `pause` apart, then
    /// closes the connection.
    final class ScriptedServer: @unchecked Sendable {
        let fd: Int32
        let port: UInt16

        init(pieces: [[UInt8]], pause: useconds_t = 20_000) throws {
            let (fd, port) = try loopbackListener(backlog: 4)
            self.fd = fd
            self.port = port
            Thread {
                let c = accept(fd, nil, nil)
                guard c >= 0 else { return }
                var request: [UInt8] = []
                var byte: UInt8 = 0
                while !request.suffix(4).elementsEqual("\r\n\r\n".utf8), recv(c, &byte, 1, 0) == 1 { request.append(byte) }
                for piece in pieces {
                    var sent = 0
                    while sent < piece.count {
                        let n = piece[sent...].withUnsafeBytes { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        if n <= 0 { break }
                        sent += n
                    }
                    usleep(pause)
                }
                close(c)
            }.start()
        }

        deinit { close(fd) }
    }

    static func head(length: Int) -> [UInt8] {
        Array("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(length)\r\n\r\n".utf8)
    }

    static func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) } }

    @Test func aBodyOfMegabytesInUnevenPiecesArrivesWhole() throws {
        let body = Self.pattern(3_600_000)
        // Part of the body comes with the headers; the rest in pieces that end mid-read.
        let pieces = [Self.head(length: body.count) + body[0..<1_000], Array(body[1_000..<70_001]), Array(body[70_001..<2_000_000]),
                      Array(body[2_000_000...])]
        let server = try ScriptedServer(pieces: pieces)
        let response = try HTTPClient(address: ServerAddress(host: "127.0.0.1", port: server.port)).request("GET", "/v1/conversations")
        #expect(response.status == 200)
        #expect(response.body.count == body.count)
        #expect(response.body == body)
    }

    @Test func aBodyThatCameWholeWithItsHeadersIsTakenFromTheBuffer() throws {
        let body = Self.pattern(5_000)
        let server = try ScriptedServer(pieces: [Self.head(length: body.count) + body])
        let response = try HTTPClient(address: ServerAddress(host: "127.0.0.1", port: server.port)).request("GET", "/v1/me")
        #expect(response.body == body)
    }

    @Test func anAnswerCutShortIsAnErrorNotAShortBody() throws {
        let body = Self.pattern(1_000_000)
        let server = try ScriptedServer(pieces: [Self.head(length: body.count) + body[0..<300], Array(body[300..<500_000])])
        let client = HTTPClient(address: ServerAddress(host: "127.0.0.1", port: server.port))
        #expect(throws: HTTPClientError.connectionLost("the answer was cut short")) {
            try client.request("GET", "/v1/conversations")
        }
    }

    /// A chunked answer (a proxy may send one), with a chunk extension and a trailer, is read
    /// whole by `request` and passed on whole by `stream`.
    @Test func aChunkedAnswerIsReadWholeByBothReaders() throws {
        let body = Self.pattern(200_000)
        var wire = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for (i, range) in [0..<1, 1..<70_000, 70_000..<200_000].enumerated() {
            wire += Array("\(String(range.count, radix: 16))\(i == 1 ? ";name=value" : "")\r\n".utf8) + body[range] + Array("\r\n".utf8)
        }
        wire += Array("0\r\nX-Trailer: 1\r\n\r\n".utf8)
        let pieces = [Array(wire[0..<5_000]), Array(wire[5_000..<100_000]), Array(wire[100_000...])]

        let server = try ScriptedServer(pieces: pieces)
        let response = try HTTPClient(address: ServerAddress(host: "127.0.0.1", port: server.port)).request("GET", "/v1/me")
        #expect(response.status == 200)
        #expect(response.body == body)

        let streamed = try ScriptedServer(pieces: pieces)
        var passed: [UInt8] = []
        let head = try HTTPClient(address: ServerAddress(host: "127.0.0.1", port: streamed.port))
            .stream("/v1/files/x", onHead: { _ in }, onBody: { passed += $0 })
        #expect(head.status == 200)
        #expect(passed == body)
    }
}
