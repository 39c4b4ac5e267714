import Foundation
import NexusCore
import Testing

/// Replicas cache sessions and access tokens (SessionCache): a token another replica
/// logs out or revokes must stop working here within the documented bound (docs/auth.md:
/// as the revocation's note arrives, and in any case within 2 s).
@Suite(.enabled(if: Backend.postgres != nil, "needs PostgreSQL: run under Tests/scripts/with-postgres.sh"), .harness)
struct ReplicaSessionCacheTests {
    /// The cache's bound (SessionCache.replicaTTL) and a little for a loaded machine.
    static let bound: TimeInterval = 2.5

    /// Seconds until `api` is refused with 401, asking every 20 ms; nil if still let in
    /// after `bound` and a margin.
    private func secondsUntilRefused(_ api: NexusAPI) -> TimeInterval? {
        let start = Date()
        while Date().timeIntervalSince(start) < Self.bound + 2 {
            do {
                _ = try api.me()
            } catch {
                guard error.status == 401 else { return nil }
                return Date().timeIntervalSince(start)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }

    @Test func aLogoutThroughOneReplicaShutsTheSessionOutOfTheOtherWithinTheBound() throws {
        let a = try TestServer()
        let b = try TestServer(database: a.databasePath)
        let bob = try User("bob", server: b.url)
        try bob.register()
        let viaA = NexusAPI(address: try ServerAddress(parsing: a.url), token: try bob.api().token)
        // A has the session in its cache now, and uses it many times within its life.
        for _ in 0..<20 { #expect(try viaA.me().email == bob.email) }
        #expect(try bob.run(["logout"]).code == 0)
        let refused = secondsUntilRefused(viaA) ?? .infinity
        #expect(refused <= Self.bound, "refused after \(refused) s")
    }

    @Test func aTokenRevokedThroughOneReplicaStopsWorkingOnTheOtherWithinTheBound() throws {
        let a = try TestServer()
        let b = try TestServer(database: a.databasePath)
        let alice = try User("alice", server: b.url)
        try alice.register()
        let created = try alice.run(["token", "create", "ci", "--scope", "read"])
        #expect(created.code == 0, "\(created.err)")
        let token = created.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let viaA = NexusAPI(address: try ServerAddress(parsing: a.url), token: token)
        for _ in 0..<20 { #expect(try viaA.me().email == alice.email) }
        #expect(try alice.run(["token", "revoke", "ci"]).code == 0)
        let refused = secondsUntilRefused(viaA) ?? .infinity
        #expect(refused <= Self.bound, "refused after \(refused) s")
    }
}
