import Foundation
import HTTPTypes
import NexusWire
import Testing

@testable import NexusServer

/// Presence beside the feed (`GET /v1/sync?presence=DIGEST`) and the rules of live
/// clients' leases, in-process. The real connections (a killed `tail -f`, a goodbye,
/// replicas) are in Tests/IntegrationTests/Commands/Tail/PresenceTests.swift.
@Suite(.timeLimit(.minutes(5)))
struct PresenceSyncTests {
    @Test func syncReportsContactsPresenceWhenItsDigestMoved() async throws {
        let clock = TestClock()
        try await withServer(clock: clock.read) { api in
            let (alice, bob, _) = try await api.pair()
            _ = try await api.call(.get, "/v1/me", token: bob.token, presence: "bob-client")
            let first = try await api.sync(alice.token, query: "after=0&presence=")
            #expect(first.presence == [PresenceState(userId: bob.user.id, online: true, lastSeenAt: first.presence?.first?.lastSeenAt)])
            let digest = try #require(first.presenceDigest)

            // Nothing moved: the digest alone, no states.
            let same = try await api.sync(alice.token, query: "after=\(first.cursor)&presence=\(digest)")
            #expect(same.presence == nil)
            #expect(same.presenceDigest == digest)

            // Bob's lease runs out: the digest moves, with his state.
            clock.advance(seconds: 61)
            let gone = try await api.sync(alice.token, query: "after=\(first.cursor)&presence=\(digest)")
            #expect(gone.presence?.map(\.online) == [false])
            #expect(gone.presenceDigest != digest)

            // Not asked: as before.
            #expect(try await api.sync(alice.token, query: "after=0").presenceDigest == nil)
        }
    }

    @Test func aMalformedClientNameIsRefused() async throws {
        try await withServer { api in
            let (alice, _, _) = try await api.pair()
            let response = try await api.call(.delete, "/v1/presence/not%20a%20name", token: alice.token)
            try expectError(response, .badRequest, code: "invalid_client")
            #expect(try await api.call(.delete, "/v1/presence/abc-123", token: alice.token).status == .noContent)
        }
    }

    @Test(arguments: [
        // (old polling, new polling, expected until): a poll cuts a request's minute to the grace.
        (false, true, Int64(1_000 + Presence.graceMs)),
        // A request on a polling lease keeps it no longer than the grace after it.
        (true, false, Int64(1_000 + Presence.graceMs)),
        (false, false, Int64(1_000 + Presence.onlineWindowMs)),
    ])
    func leasesMerge(oldPolling: Bool, newPolling: Bool, until: Int64) {
        func lease(_ polling: Bool, at: Int64) -> PresenceLease {
            PresenceLease(
                user: 1, client: "c", polling: polling, at: Timestamp(milliseconds: at),
                until: Timestamp(milliseconds: at + (polling ? Presence.graceMs : Presence.onlineWindowMs)))
        }
        let merged = PresenceLease.merged(lease(oldPolling, at: 0), lease(newPolling, at: 1_000), grace: Presence.graceMs)
        #expect(merged.until.milliseconds == until)
        #expect(merged.polling == (oldPolling || newPolling))
    }

    @Test func theBoardReportsWhoCameAndWhoWent() {
        let board = PresenceBoard()
        let now = Timestamp(milliseconds: 10_000)
        let held = HeldPresence(until: Timestamp(milliseconds: 15_000), lastAt: now)
        #expect(board.replace([1: held], now: now) == [1])
        #expect(board.replace([1: held], now: Timestamp(milliseconds: 14_000)) == [])
        // Nothing changed in the store, but the lease ran out: user 1 went.
        #expect(board.replace([1: held], now: Timestamp(milliseconds: 15_001)) == [1])
    }
}
