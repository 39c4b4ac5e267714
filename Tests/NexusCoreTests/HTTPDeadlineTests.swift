#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import NexusCore
import Testing

/// A server that accepts connections and reads nothing (a stopped
/// process: the kernel still completes the handshake) must not hang the client.
struct HTTPDeadlineTests {
    /// A loopback socket that listens and never accepts: a frozen server.
    final class FrozenListener {
        let fd: Int32
        let port: UInt16

        init() throws {
            (fd, port) = try loopbackListener()
        }

        deinit { close(fd) }
    }

    @Test func aLargeBodyToAFrozenServerTimesOutInsteadOfHanging() throws {
        let frozen = try FrozenListener()
        let client = HTTPClient(address: ServerAddress(host: "127.0.0.1", port: frozen.port))
        client.writeStallMs = 300
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 12 * 1024 * 1024)
        let start = Date()
        #expect(throws: HTTPClientError.timedOut) {
            try client.request("POST", "/v1/messages/batch", body: body, timeoutMs: 60_000)
        }
        #expect(Date().timeIntervalSince(start) < 5, "the write stalled for \(Date().timeIntervalSince(start)) s")
    }

    @Test func aServerThatNeverAnswersMeetsTheDeadline() throws {
        let frozen = try FrozenListener()
        let client = HTTPClient(address: ServerAddress(host: "127.0.0.1", port: frozen.port))
        let start = Date()
        #expect(throws: HTTPClientError.timedOut) {
            try client.request("GET", "/v1/me", timeoutMs: 400)
        }
        let took = Date().timeIntervalSince(start)
        #expect(took >= 0.35 && took < 3, "took \(took) s")
    }
}
