import Foundation
import HTTPTypes
import NexusWire
import Testing

@testable import NexusServer

/// Groups, receipts, unread counts, message status, typing and presence.
struct ReceiptsTypingPresenceTests {
    func group(_ api: API) async throws -> (AuthResponse, AuthResponse, AuthResponse, Conversation) {
        let alice = try await api.register("alice@example.com", name: "Alice")
        let bob = try await api.register("bob@example.com", name: "Bob")
        let carol = try await api.register("carol@example.com", name: "Carol")
        let response = try await api.call(
            .post, "/v1/conversations", token: alice.token,
            json: CreateConversationRequest(kind: .group, members: ["bob@example.com", "carol@example.com"]))
        #expect(response.status == .created)
        return (alice, bob, carol, try decode(ConversationResponse.self, response).conversation)
    }

    func receipts(_ api: API, _ token: String, _ conversation: Int64, delivered: Int64? = nil, read: Int64? = nil) async throws -> Conversation {
        let response = try await api.call(
            .post, "/v1/conversations/\(conversation)/receipts", token: token, json: ReceiptsRequest(delivered: delivered, read: read))
        try #require(response.status == .ok, "receipts answered \(response.status): \(response.text)")
        return try decode(Conversation.self, response)
    }

    func conversation(_ api: API, _ token: String, _ id: Int64) async throws -> Conversation {
        try decode(Conversation.self, try await api.call(.get, "/v1/conversations/\(id)", token: token))
    }

    @Test func groupsAreNamedAfterTheirMembersAndNeedThemAll() async throws {
        try await withServer { api in
            let (alice, _, _, g) = try await group(api)
            #expect(g.kind == .group)
            #expect(g.name == "Alice, Bob, Carol")
            #expect(g.members.map(\.email) == ["alice@example.com", "bob@example.com", "carol@example.com"])
            let named = try await api.call(
                .post, "/v1/conversations", token: alice.token,
                json: CreateConversationRequest(kind: .group, members: ["bob@example.com", "carol@example.com"], name: "Launch"))
            #expect(try decode(ConversationResponse.self, named).conversation.name == "Launch")

            let before = try decode(ConversationsResponse.self, try await api.call(.get, "/v1/conversations", token: alice.token)).conversations.count
            let unknown = try await api.call(
                .post, "/v1/conversations", token: alice.token,
                json: CreateConversationRequest(kind: .group, members: ["bob@example.com", "nobody@example.com"]))
            try expectError(unknown, .notFound, code: "user_not_found")
            let after = try decode(ConversationsResponse.self, try await api.call(.get, "/v1/conversations", token: alice.token)).conversations.count
            #expect(after == before, "a group was created despite the unknown email")
        }
    }

    @Test func unreadRisesThenFallsAndReceiptsAreWatermarks() async throws {
        try await withServer { api in
            let (alice, bob, carol, g) = try await group(api)
            for i in 1...3 { try await api.send(alice.token, to: g.id, localId: "a\(i)") }
            #expect(try await conversation(api, bob.token, g.id).unreadCount == 3)
            #expect(try await conversation(api, alice.token, g.id).unreadCount == 0, "your own messages are not unread")

            let afterDelivered = try await receipts(api, bob.token, g.id, delivered: 3)
            #expect(afterDelivered.unreadCount == 3, "delivered is not read")
            let afterRead = try await receipts(api, bob.token, g.id, read: 2)
            #expect(afterRead.unreadCount == 1)
            let bobs = try #require(afterRead.receipts?.first { $0.userId == bob.user.id })
            #expect(bobs.deliveredSeq == 3 && bobs.readSeq == 2)
            // Watermarks only move forward, and never past the last message.
            let back = try await receipts(api, bob.token, g.id, read: 1)
            #expect(back.receipts?.first { $0.userId == bob.user.id }?.readSeq == 2)
            let ahead = try await receipts(api, carol.token, g.id, read: 99)
            let carols = try #require(ahead.receipts?.first { $0.userId == carol.user.id })
            #expect(carols.readSeq == 3 && carols.deliveredSeq == 3, "read implies delivered, capped at the last seq")
            #expect(ahead.unreadCount == 0)
        }
    }

    @Test func statusTellsWhenEachMemberGotAndReadAMessage() async throws {
        try await withServer { api in
            let (alice, bob, carol, g) = try await group(api)
            let sent = try await api.send(alice.token, to: g.id, localId: "q").response.message
            _ = try await receipts(api, bob.token, g.id, read: 1)
            let byId = try decode(MessageStatus.self, try await api.call(.get, "/v1/messages/\(sent.id)/status", token: alice.token))
            #expect(byId.members.map(\.user.id) == [bob.user.id, carol.user.id])
            #expect(byId.members[0].deliveredAt != nil && byId.members[0].readAt != nil)
            #expect(byId.members[1].deliveredAt == nil && byId.members[1].readAt == nil)
            let byLocalId = try decode(MessageStatus.self, try await api.call(.get, "/v1/messages/status?localId=q", token: alice.token))
            #expect(byLocalId.message.id == sent.id)
            let stranger = try await api.register("dave@example.com")
            try expectError(try await api.call(.get, "/v1/messages/\(sent.id)/status", token: stranger.token), .notFound, code: "message_not_found")
        }
    }

    @Test func receiptsArriveInTheFeed() async throws {
        try await withServer { api in
            let (alice, bob, _, g) = try await group(api)
            try await api.send(alice.token, to: g.id, localId: "m")
            let start = try await api.sync(alice.token, query: "after=0")
            _ = try await receipts(api, bob.token, g.id, read: 1)
            let next = try await api.sync(alice.token, query: "after=\(start.cursor)")
            let kinds = next.events.compactMap(\.receipt).map { "\($0.userId):\($0.kind.rawValue):\($0.seq)" }
            #expect(kinds == ["\(bob.user.id):delivered:1", "\(bob.user.id):read:1"])
        }
    }

    /// The typing wakes the poll: a poll that ran out would also show it (the test clock
    /// stands still), so the answer must come long before the poll's 20 s.
    @Test func typingWakesALongPollAndExpires() async throws {
        HeldPolls.turnOn()
        let clock = TestClock()
        try await withServer(clock: clock.read) { api in
            let (alice, bob, _, g) = try await group(api)
            let head = try await api.sync(bob.token, query: "after=0").cursor
            async let poll = api.sync(bob.token, query: "after=\(head)&wait=20")
            await HeldPolls.wait(for: Tokens.hash(bob.token))
            let typedAt = ContinuousClock.now
            let typed = try await api.call(.post, "/v1/conversations/\(g.id)/typing", token: alice.token)
            #expect(typed.status == .ok)
            let answer = try await poll
            let took = ContinuousClock.now - typedAt
            #expect(took < .seconds(10), "answered \(took) after the typing: the poll ran out instead")
            #expect(answer.typing?.map(\.userId) == [alice.user.id])
            #expect(answer.events.isEmpty)
            clock.advance(milliseconds: 2_500)
            #expect(try await api.sync(bob.token, query: "after=\(head)").typing?.map(\.userId) == [alice.user.id])
            clock.advance(milliseconds: 1_000)
            #expect(try await api.sync(bob.token, query: "after=\(head)").typing == nil, "typing lasts 3 s (the product documents)")
        }
    }

    /// Typing announced in the moment between an answer and the poll that follows it is
    /// news to that poll: it answers at once, not when it runs out, 20 s on.
    @Test func typingBetweenTwoPollsIsNewsToTheSecond() async throws {
        let clock = TestClock()
        try await withServer(clock: clock.read) { api in
            let (alice, bob, _, g) = try await group(api)
            let head = try await api.sync(bob.token, query: "after=0").cursor
            clock.advance(milliseconds: 100)
            #expect(try await api.call(.post, "/v1/conversations/\(g.id)/typing", token: alice.token).status == .ok)
            clock.advance(milliseconds: 100)
            let asked = ContinuousClock.now
            let answer = try await api.sync(bob.token, query: "after=\(head)&wait=20")
            let took = ContinuousClock.now - asked
            #expect(took < .seconds(10), "answered \(took) after it was asked: the poll ran out instead")
            #expect(answer.typing?.map(\.userId) == [alice.user.id])
            // Told once: the poll after that answer waits, as it would have before (no loop of
            // answers while the typing lasts).
            let waited = ContinuousClock.now
            let again = try await api.sync(bob.token, query: "after=\(answer.cursor)&wait=1")
            #expect(ContinuousClock.now - waited >= .milliseconds(900))
            #expect(again.typing?.map(\.userId) == [alice.user.id])
        }
    }

    @Test func aOneOffRequestIsLastSeenAndOnlyALiveClientIsOnline() async throws {
        let clock = TestClock()
        try await withServer(clock: clock.read) { api in
            let alice = try await api.register("alice@example.com")
            let bob = try await api.register("bob@example.com")
            _ = try await api.call(.get, "/v1/me", token: bob.token)
            func bobAsSeenByAlice() async throws -> User {
                try #require(try decode(UsersResponse.self, try await api.call(.get, "/v1/users", token: alice.token)).users.first)
            }
            // Registering, and one command after it, is no open chat.
            let once = try await bobAsSeenByAlice()
            #expect(once.online == false)
            #expect(once.lastSeenAt != nil)
            // A live client's request holds a lease of 60 s.
            _ = try await api.call(.get, "/v1/me", token: bob.token, presence: "bob-tail")
            #expect(try await bobAsSeenByAlice().online == true)
            clock.advance(seconds: 59)
            #expect(try await bobAsSeenByAlice().online == true)
            clock.advance(seconds: 2)
            let away = try await bobAsSeenByAlice()
            #expect(away.online == false)
            #expect(away.lastSeenAt != nil)
        }
    }

    @Test func nonMembersGetNotFoundOnTheNewEndpoints() async throws {
        try await withServer { api in
            let (_, _, _, g) = try await group(api)
            let dave = try await api.register("dave@example.com")
            try expectError(
                try await api.call(.post, "/v1/conversations/\(g.id)/receipts", token: dave.token, json: ReceiptsRequest(read: 1)),
                .notFound, code: "not_found")
            try expectError(try await api.call(.post, "/v1/conversations/\(g.id)/typing", token: dave.token), .notFound, code: "not_found")
        }
    }
}
