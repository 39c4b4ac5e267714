import Foundation
import HTTPTypes
import NexusWire
import Testing

@testable import NexusServer

/// A conversation's mute, kept per account (`PUT`/`DELETE /v1/conversations/{id}/mute`):
/// idempotent, shown in the list, and followed by the account's polls that ask `mutes=`.
/// What the clients make of it: Tests/IntegrationTests/Commands/Mute.
@Suite(.timeLimit(.minutes(5)))
struct MuteTests {
    @Test func aMuteIsTheAccountsOwnIdempotentAndListed() async throws {
        let clock = TestClock()
        try await withServer(clock: clock.read) { api in
            let (alice, bob, c) = try await api.pair()
            let until = Timestamp(milliseconds: clock.read().milliseconds + 3_600_000)
            let first = try decode(MuteResponse.self, try await api.call(
                .put, "/v1/conversations/\(c)/mute", token: bob.token, json: MuteRequest(until: until, exceptMentions: true)))
            #expect(first == MuteResponse(conversationId: c, mute: Mute(conversationId: c, until: until, exceptMentions: true), changed: true))
            let again = try decode(MuteResponse.self, try await api.call(
                .put, "/v1/conversations/\(c)/mute", token: bob.token, json: MuteRequest(until: until, exceptMentions: true)))
            #expect(again.changed == false, "the same mute again changes nothing")

            let bobs = try decode(ConversationsResponse.self, try await api.call(.get, "/v1/conversations", token: bob.token))
            #expect(bobs.mutes == [Mute(conversationId: c, until: until, exceptMentions: true)])
            #expect(bobs.conversations.map(\.id) == [c])
            let alices = try decode(ConversationsResponse.self, try await api.call(.get, "/v1/conversations", token: alice.token))
            #expect(alices.mutes == nil, "bob's mute is his alone")

            // At its end it is no longer in force: listed no more, and a new mute changes it.
            clock.advance(seconds: 3601)
            let later = try decode(ConversationsResponse.self, try await api.call(.get, "/v1/conversations", token: bob.token))
            #expect(later.mutes == nil)
            let unmuted = try decode(MuteResponse.self, try await api.call(.delete, "/v1/conversations/\(c)/mute", token: bob.token))
            #expect(unmuted.changed == false, "an ended mute is none")

            let forever = try decode(MuteResponse.self, try await api.call(.put, "/v1/conversations/\(c)/mute", token: bob.token, json: MuteRequest()))
            #expect(forever.changed && forever.mute?.until == nil)
            let ended = try decode(MuteResponse.self, try await api.call(.delete, "/v1/conversations/\(c)/mute", token: bob.token))
            #expect(ended == MuteResponse(conversationId: c, mute: nil, changed: true))
        }
    }

    @Test func aMuteInThePastOrOfAStrangersConversationIsRefused() async throws {
        let clock = TestClock()
        try await withServer(clock: clock.read) { api in
            let (_, bob, c) = try await api.pair()
            let carol = try await api.register("carol@example.com")
            let past = Timestamp(milliseconds: clock.read().milliseconds - 1)
            try expectError(
                try await api.call(.put, "/v1/conversations/\(c)/mute", token: bob.token, json: MuteRequest(until: past)),
                .badRequest, code: "invalid_body")
            let far = Timestamp(milliseconds: clock.read().milliseconds + Muting.longestMs + 1)
            try expectError(
                try await api.call(.put, "/v1/conversations/\(c)/mute", token: bob.token, json: MuteRequest(until: far)),
                .badRequest, code: "invalid_body")
            try expectError(
                try await api.call(.put, "/v1/conversations/\(c)/mute", token: carol.token, json: MuteRequest()), .notFound, code: "not_found")
            try expectError(try await api.call(.delete, "/v1/conversations/\(c)/mute", token: carol.token), .notFound, code: "not_found")
        }
    }

    /// A poll that asked `mutes=DIGEST` answers at once when the account mutes, from any of
    /// its sessions, with the new list; one that did not ask is not woken by it.
    @Test func aHeldPollThatAskedHearsOfAMuteAtOnce() async throws {
        HeldPolls.turnOn()
        try await withServer { api in
            let (_, bob, c) = try await api.pair()
            let phone = try decode(AuthResponse.self, try await api.login("bob@example.com"))
            let start = try await api.sync(bob.token, query: "after=0&mutes=")
            #expect(start.mutes == [])
            let digest = try #require(start.mutesDigest)
            #expect(try await api.sync(bob.token, query: "after=\(start.cursor)&mutes=\(digest)").mutes == nil, "nothing moved")

            async let poll = api.sync(bob.token, query: "after=\(start.cursor)&mutes=\(digest)&wait=20")
            await HeldPolls.wait(for: Tokens.hash(bob.token))
            let mutedAt = ContinuousClock.now
            #expect(try await api.call(.put, "/v1/conversations/\(c)/mute", token: phone.token, json: MuteRequest()).status == .ok)
            let answer = try await poll
            #expect(ContinuousClock.now - mutedAt < .seconds(10), "the poll ran out instead")
            #expect(answer.mutes == [Mute(conversationId: c)])
            #expect(answer.mutesDigest != digest)
            #expect(answer.events.isEmpty)

            // The newest page (`last=`) answers the list too.
            let last = try await api.sync(bob.token, query: "last=5&mutes=\(digest)")
            #expect(last.mutes == [Mute(conversationId: c)] && last.mutesDigest == answer.mutesDigest)
            #expect(try await api.sync(bob.token, query: "after=0").mutesDigest == nil, "not asked: as before")
        }
    }
}
