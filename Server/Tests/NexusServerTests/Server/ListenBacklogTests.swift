import Foundation
import NIOCore
import NIOPosix
import Testing
#if canImport(Glibc)
import Glibc
#endif

@testable import NexusServer

/// Connections that come faster than nexusd accepts them wait in the kernel's queue
/// (ServerLimits.listenBacklog) instead of being turned away: with Hummingbird's 256, the
/// 10,000 tails of `make bench` took 30 s to connect, each connection the full queue turned
/// away waiting a second for its SYN to be sent again.
@Suite(.timeLimit(.minutes(1)))
struct ListenBacklogTests {
    /// The kernel caps the queue at net.core.somaxconn: 4,096 since Linux 5.4, 128 before.
    static let kernelQueue = (try? String(contentsOfFile: "/proc/sys/net/core/somaxconn", encoding: .utf8))
        .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0

    @Test(.enabled(if: kernelQueue >= 1_024, "net.core.somaxconn is under 1,024"))
    func aBurstLargerThanHummingbirdsQueueConnectsAtOnce() async throws {
        let burst = 600
        try Self.allowOpenFiles(burst + 1_000)
        try await withRawServer(limits: ServerLimits()) { port in
            // Nothing is accepted while the serving loops are held (briefly: other suites share
            // them): the burst waits in the queue, or the kernel turns part of it away.
            for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
                loop.execute { usleep(400_000) }
            }
            try await Task.sleep(for: .milliseconds(50))
            let started = ContinuousClock.now
            let connections = try (0..<burst).map { _ in try RawConnection(port: port) }
            let took = ContinuousClock.now - started
            #expect(took < .milliseconds(350), "\(burst) connections took \(took): some were turned away")
            // And each is served once the loops are free.
            for connection in [connections[0], connections[burst - 1]] {
                connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                #expect(await connection.readUntilClosed(timeout: 5)?.hasPrefix("HTTP/1.1 200") == true)
            }
        }
    }

    /// The burst's sockets beside the other tests': the soft limit may be 1,024.
    private static func allowOpenFiles(_ count: Int) throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        guard limit.rlim_cur < rlim_t(count) else { return }
        try #require(limit.rlim_max >= rlim_t(count), "needs \(count) open files (ulimit -Hn)")
        limit.rlim_cur = min(limit.rlim_max, 65_536)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
