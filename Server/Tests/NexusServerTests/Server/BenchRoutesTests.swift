import BenchRoutes
import Testing

@testable import NexusServer

/// nexusd-bench's two trivial routes (BenchRoutes.swift): the one below Hummingbird must
/// write what the routed one writes, or the bench's "Hummingbird's own part" compares two
/// different answers; and neither exists in nexusd.
@Suite(.timeLimit(.minutes(1)))
struct BenchRoutesTests {
    static let post = "Host: x\r\nAuthorization: Bearer bench\r\nContent-Length: 2\r\n\r\n{}"

    @Test func theAnswerBelowHummingbirdIsTheRoutedOneOnTheSameConnection() async throws {
        try await withRawServer(limits: ServerLimits(), extensions: [BenchRoutes(belowHummingbird: true)]) { port in
            let connection = try RawConnection(port: port)
            func answer(_ request: String) async throws -> String {
                connection.send(request)
                return try #require(await connection.read(timeout: 5) { $0.hasSuffix("}}") || $0.hasSuffix("\"ok\"}") })
            }
            let routed = try await answer("POST /bench/limit HTTP/1.1\r\n" + Self.post)
            let below = try await answer("POST /bench/limit-nio HTTP/1.1\r\n" + Self.post)
            #expect(routed.hasPrefix("HTTP/1.1 201 Created\r\n"))
            #expect(Self.withoutDate(below) == Self.withoutDate(routed))
            // Hummingbird goes on serving the connection after it.
            let after = try await answer("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(after.hasPrefix("HTTP/1.1 200"))
        }
    }

    /// In nexusd neither; in nexusd-bench without `--bench-below-hummingbird`, the routed one only.
    @Test(arguments: [false, true]) func withoutTheirFlagsTheyDoNotExist(routes: Bool) async throws {
        try await withRawServer(limits: ServerLimits(), extensions: routes ? [BenchRoutes()] : []) { port in
            for path in routes ? ["/bench/limit-nio"] : ["/bench/limit", "/bench/limit-nio"] {
                let connection = try RawConnection(port: port)
                connection.send("POST \(path) HTTP/1.1\r\nConnection: close\r\n" + Self.post)
                let answer = try #require(await connection.readUntilClosed(timeout: 5))
                #expect(answer.hasPrefix("HTTP/1.1 404"), "\(path): \(answer)")
            }
        }
    }

    /// The header lines in order, the date's value left out (the two answers may straddle a second).
    static func withoutDate(_ answer: String) -> [Substring] {
        answer.split(separator: "\r\n", omittingEmptySubsequences: false).map { $0.lowercased().hasPrefix("date:") ? "date" : $0 }
    }
}
