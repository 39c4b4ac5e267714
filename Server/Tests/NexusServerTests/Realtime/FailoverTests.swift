import Foundation
import Glibc
import Logging
import Testing

@testable import NexusServer

/// Several PostgreSQL hosts: the URL, and, on the test cluster when there is one
/// (Tests/scripts/with-postgres.sh), finding the writable primary among them, answering
/// 503 at once while there is none, and finding it again by itself. The real failover, with
/// pg_auto_failover and two replicas, is Tests/scripts/failover.sh (`make failover-test`).
@Suite(.timeLimit(.minutes(2)))
struct FailoverTests {
    @Test func multiHostURLs() throws {
        let url = try PostgresURL("postgres://nexus:s3cret@db1:5432,db2,[::1]:6543/chat?target_session_attrs=read-write&sslmode=disable")
        #expect(url.endpoints == [.tcp(host: "db1", port: 5432), .tcp(host: "db2", port: 5432), .tcp(host: "::1", port: 6543)])
        #expect(url.username == "nexus" && url.password == "s3cret" && url.database == "chat" && url.tls == .disable)
        #expect(url.endpoints.map(\.description) == ["db1:5432", "db2:5432", "[::1]:6543"])
        #expect(try PostgresURL("postgres://nexus@db1:5432/chat").endpoints == [.tcp(host: "db1", port: 5432)])

        #expect(throws: PostgresURL.Invalid.self) { try PostgresURL("postgres://x@db1:5432,db2:port/z") }
        #expect(throws: PostgresURL.Invalid.self) { try PostgresURL("postgres://x@db1,,db2/z") }
        #expect(throws: PostgresURL.Invalid.self) { try PostgresURL("postgres://x@db1,db2/z?target_session_attrs=standby") }

        // A password never reaches a log, with one host or several.
        let redacted = PostgresURL.redacted("postgres://nexus:s3cret@db1:5432,db2:5432/chat")
        #expect(redacted == "postgres://nexus:xxx@db1:5432,db2:5432/chat")
        #expect(PostgresURL.redacted("postgres://nexus@db1,db2/chat") == "postgres://nexus@db1,db2/chat")
    }

    /// The test cluster's URL, host and port, and a loopback port nothing listens on.
    private static func cluster() throws -> (server: String, host: String, port: Int, dead: Int)? {
        guard let server = ProcessInfo.processInfo.environment["NEXUS_TEST_POSTGRES"], !server.isEmpty else { return nil }
        guard case .tcp(let host, let port) = try PostgresURL(server).endpoint else { return nil }
        return (server, host, port, unusedLoopbackPort())
    }

    /// Binds a socket to port 0 and closes it: that port then refuses connections.
    private static func unusedLoopbackPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    @Test func findsThePrimaryPastADeadHostAndFollowsItWhenItTurnsReadOnly() async throws {
        guard let (server, host, port, dead) = try Self.cluster() else { return }
        let name = "nexusd_failover_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try TestPostgres.run(server, "CREATE DATABASE \(name)")
        defer { try? TestPostgres.run(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        var components = try #require(URLComponents(string: server))
        components.path = "/" + name
        let single = try #require(components.string)
        let multi = single.replacingOccurrences(of: "@\(host):\(port)/", with: "@\(host):\(dead),\(host):\(port)/")
        #expect(multi != single)

        let db = try await PostgresDatabase.open(url: multi, logger: Logger(label: "test"))
        defer { Task { try? await db.close() } }
        #expect(try await db.primary.pool().endpoint == .tcp(host: host, port: port))
        _ = try await db.rows("CREATE TABLE t (x INT)")

        // The only live host turns read-only, as an old primary does when demoted: within a
        // couple of seconds requests are refused at once (503), not held.
        try TestPostgres.run(server, "ALTER DATABASE \(name) SET default_transaction_read_only = on")
        try TestPostgres.run(server, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
        let clock = ContinuousClock()
        var refused = false
        for _ in 0..<40 where !refused {
            let start = clock.now
            do {
                _ = try await db.rows("INSERT INTO t VALUES (1)")
                try await Task.sleep(for: .milliseconds(100))
            } catch is DatabaseUnavailable {
                refused = true
                #expect(clock.now - start < .seconds(3), "a request waited \(clock.now - start) for a primary")
            }
        }
        #expect(refused, "writes were never refused while no host was writable")

        // It is writable again (a new primary on the same address): found without a restart.
        try TestPostgres.run(server, "ALTER DATABASE \(name) RESET default_transaction_read_only")
        var written = false
        for _ in 0..<50 where !written {
            if (try? await db.rows("INSERT INTO t VALUES (2)")) != nil { written = true } else { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(written, "writes did not resume after the host became writable again")
    }

    /// A call on a pool dropped because its host stopped being the primary fails at once,
    /// whatever it is waiting for: the call below sleeps in its transaction, as an INSERT
    /// stuck on such a pool once waited out the 5 s deadline (under load, about one run of
    /// the test above in 30). With the pool's calls not abandoned, the call with a deadline
    /// waits it out, and the one without one had not returned after ten minutes.
    @Test(arguments: [PostgresDatabase.deadline, nil])
    func callsOnALostPrimaryFailAtOnce(deadline: Duration?) async throws {
        guard let (server, host, port, dead) = try Self.cluster() else { return }
        let multi = server.replacingOccurrences(of: "@\(host):\(port)/", with: "@\(host):\(dead),\(host):\(port)/")
        let db = try await PostgresDatabase.open(url: multi, logger: Logger(label: "test"))
        defer { Task { try? await db.close() } }
        let pool = try await db.primary.pool()

        let clock = ContinuousClock()
        let start = clock.now
        let stuck = Task { try await db.transaction(deadline: deadline) { _ in try await Task.sleep(for: .seconds(30)) } }
        try await Task.sleep(for: .milliseconds(300))
        db.primary.lost(pool)
        await #expect(throws: DatabaseUnavailable.self) { try await stuck.value }
        #expect(clock.now - start < .seconds(3), "a call on the lost primary's pool waited \(clock.now - start)")
        // The host is still writable: it is found again, and calls go on.
        #expect(try await db.rows("SELECT 1").count == 1)
    }
}
