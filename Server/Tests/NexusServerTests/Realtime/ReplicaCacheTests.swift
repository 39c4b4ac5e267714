import Foundation
import Logging
import NexusWire
import PostgresNIO
import Synchronization
import Testing

@testable import NexusServer

/// What lets replicas skip a database read a request: the session cache's
/// bound, the notes that empty it, and the one watchdog behind every query's deadline and
/// every call on a dropped pool.
/// Two real replicas revoking across each other: ReplicaSessionCacheTests (integration).
@Suite(.timeLimit(.minutes(5)))
struct ReplicaCacheTests {
    private func session(expiresIn ms: Int64) -> StoredSession {
        StoredSession(
            user: User(id: 1, email: "a@b.example", displayName: "A"),
            expiresAt: Timestamp(milliseconds: Timestamp.now().milliseconds + ms), createdAt: .now())
    }

    @Test func revocationAndMembershipNotesSurviveTheirPayload() {
        let hash = String(repeating: "ab", count: 32)
        for note in [ClusterNote.revoked(tokenHashes: [hash, hash.uppercased()]), .members(conversationIds: [4, 55])] {
            let payload = note.payload(origin: "abc")!
            #expect(ClusterNote(payload: payload, skipping: "xyz") == note)
            #expect(ClusterNote(payload: payload, skipping: "abc") == nil)
        }
        #expect(ClusterNote(payload: "abc r ", skipping: "x") == nil)
        #expect(ClusterNote(payload: "abc m x", skipping: "x") == nil)
        let hashes = (0..<1000).map { String(format: "%064x", $0) }
        let payloads = ClusterNote.revokedPayloads(origin: "origin", tokenHashes: hashes)
        #expect(payloads.count > 1 && payloads.allSatisfy { $0.utf8.count < 8000 })
        #expect(payloads.flatMap { p -> [String] in
            guard case .revoked(let h) = ClusterNote(payload: p, skipping: "me") else { return [] }
            return h
        } == hashes)
    }

    /// An entry's age by a clock the test moves.
    final class Elapsed: Sendable {
        private let start = ContinuousClock.now
        private let elapsed = Mutex(Duration.zero)
        func now() -> ContinuousClock.Instant { start + elapsed.withLock { $0 } }
        func advance(_ by: Duration) { elapsed.withLock { $0 += by } }
    }

    @Test func aReplicasCacheTrustsAnEntryForItsTTLOnly() {
        let clock = Elapsed()
        let cache = SessionCache(ttl: .milliseconds(200), clock: clock.now)
        let (_, generation) = cache.lookup(hash: "h", now: .now())
        cache.remember(session(expiresIn: 60_000), forHash: "h", generation: generation)
        #expect(cache.lookup(hash: "h", now: .now()).session != nil)
        clock.advance(.milliseconds(199))
        #expect(cache.lookup(hash: "h", now: .now()).session != nil, "trusted until the TTL")
        clock.advance(.milliseconds(2))
        #expect(cache.lookup(hash: "h", now: .now()).session == nil, "read again once older than the TTL")

        // One SQLite process: for ever (until forgotten).
        let single = SessionCache(clock: clock.now)
        single.remember(session(expiresIn: 60_000), forHash: "h", generation: 0)
        clock.advance(.seconds(3600))
        #expect(single.lookup(hash: "h", now: .now()).session != nil)
    }

    @Test func aReplicaReadsAgainAnEntryPastItsExpiryAnotherReplicaMayHaveSlid() {
        let cache = SessionCache(ttl: .seconds(60))
        cache.remember(session(expiresIn: 1_000), forHash: "h", generation: 0)
        #expect(cache.lookup(hash: "h", now: .now()).session != nil)
        let later = Timestamp(milliseconds: Timestamp.now().milliseconds + 2_000)
        #expect(cache.lookup(hash: "h", now: later).session == nil)
    }

    @Test func forgettingEverythingKeepsOutAReadFromBefore() {
        let cache = SessionCache(ttl: .seconds(60))
        cache.remember(session(expiresIn: 60_000), forHash: "a", generation: 0)
        let (_, generation) = cache.lookup(hash: "b", now: .now())
        cache.forgetAll()  // the bus reconnected: notes may have been lost
        cache.remember(session(expiresIn: 60_000), forHash: "b", generation: generation)
        #expect(cache.lookup(hash: "a", now: .now()).session == nil)
        #expect(cache.lookup(hash: "b", now: .now()).session == nil)
    }

    /// A pool on a port nothing listens on: its client connects only when a query asks, and
    /// these don't; its sends' connection tries once at start, and fails.
    private static func idlePool() -> PostgresPrimary.Pool {
        let configuration = PostgresClient.Configuration(host: "127.0.0.1", port: 1, username: "nexus", password: nil, database: nil, tls: .disable)
        let sends = PostgresConnection.Configuration(host: "127.0.0.1", port: 1, username: "nexus", password: nil, database: nil, tls: .disable)
        return PostgresPrimary.Pool(
            client: PostgresClient(configuration: configuration), sends: SendsConnection(configuration: sends, logger: Logger(label: "test")),
            endpoint: .tcp(host: "127.0.0.1", port: 1), logger: Logger(label: "test"))
    }

    @Test func aQueryPastItsDeadlineFailsAsUnavailableAndIsCancelled() async throws {
        let deadlines = QueryDeadlines()
        let pool = Self.idlePool()
        defer { Task { await pool.close() } }
        #expect(try await deadlines.run(on: pool, within: .seconds(5)) { 42 } == 42)
        await #expect(throws: CancellationError.self) {
            try await deadlines.run(on: pool, within: .seconds(5)) { () async throws -> Int in throw CancellationError() }
        }
        // The late query says how it ended: cancelled, or after its whole 30 s.
        let (ended, endedNow) = AsyncStream.makeStream(of: Bool.self)
        let start = ContinuousClock.now
        await #expect(throws: DatabaseUnavailable.self) {
            try await deadlines.run(on: pool, within: .milliseconds(300)) {
                do { try await Task.sleep(for: .seconds(30)); endedNow.yield(false) } catch { endedNow.yield(true) }
            }
        }
        let took = ContinuousClock.now - start
        // Long before the query's own 30 s, however loaded the machine.
        #expect(took >= .milliseconds(300) && took < .seconds(10), "\(took)")
        #expect(await ended.first { _ in true } == true, "the late query is cancelled")

        // Cancelling the caller cancels the query, once the query runs.
        let (started, startedNow) = AsyncStream.makeStream(of: Void.self)
        let caller = Task {
            try await deadlines.run(on: pool, within: .seconds(30)) { startedNow.yield(); try await Task.sleep(for: .seconds(30)) }
        }
        _ = await started.first { true }
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
    }

    /// The calls on a pool dropped because its host is no longer the primary fail at once,
    /// with or without a deadline, and one that starts on it afterwards fails without running.
    @Test func callsOnAnAbandonedPoolFailAtOnce() async throws {
        let deadlines = QueryDeadlines()
        let (pool, other) = (Self.idlePool(), Self.idlePool())
        defer { Task { await pool.close(); await other.close() } }
        let start = ContinuousClock.now
        // Each query says when it runs, and so is in the table `abandon` reads.
        let (running, runningNow) = AsyncStream.makeStream(of: Void.self)
        let stuck = [Duration.seconds(30), nil].map { limit in
            Task { try await deadlines.run(on: pool, within: limit) { runningNow.yield(); try await Task.sleep(for: .seconds(30)) } }
        }
        let elsewhere = Task {
            try await deadlines.run(on: other, within: .seconds(30)) { runningNow.yield(); try await Task.sleep(for: .seconds(1)); return 7 }
        }
        var runs = running.makeAsyncIterator()
        for _ in 0..<3 { _ = await runs.next() }
        deadlines.abandon(pool)
        for call in stuck { await #expect(throws: DatabaseUnavailable.self) { try await call.value } }
        #expect(ContinuousClock.now - start < .seconds(10), "the calls waited \(ContinuousClock.now - start)")
        // Nor does a call that starts on it afterwards run at all, however quick.
        let ran = Mutex(0)
        for _ in 0..<200 {
            await #expect(throws: DatabaseUnavailable.self) {
                try await deadlines.run(on: pool, within: nil) { ran.withLock { $0 += 1 } }
            }
        }
        #expect(ran.withLock { $0 } == 0, "calls on the dropped pool ran")
        #expect(try await elsewhere.value == 7, "a call on another pool goes on")
    }
}
