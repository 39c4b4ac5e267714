import Foundation
import HTTPTypes
import HummingbirdTesting
import NexusWire
import Testing

@testable import NexusServer

/// Group membership after creation: the endpoints of MembersController, in-process.
@Suite(.timeLimit(.minutes(5)))
struct MembersControllerTests {
    /// alice, bob, carol and dave registered; a group of alice, bob and carol.
    func group(_ api: API) async throws -> (alice: AuthResponse, bob: AuthResponse, carol: AuthResponse, dave: AuthResponse, id: Int64) {
        let alice = try await api.register("alice@example.com", name: "Alice")
        let bob = try await api.register("bob@example.com", name: "Bob")
        let carol = try await api.register("carol@example.com", name: "Carol")
        let dave = try await api.register("dave@example.com", name: "Dave")
        let created = try await api.call(
            .post, "/v1/conversations", token: alice.token,
            json: CreateConversationRequest(kind: .group, members: [bob.user.email, carol.user.email], name: "Team"))
        #expect(created.status == .created)
        return (alice, bob, carol, dave, try decode(ConversationResponse.self, created).conversation.id)
    }

    func change(_ api: API, _ token: String, _ path: String, _ body: MembershipRequest) async throws -> TestResponse {
        try await api.call(.post, path, token: token, json: body)
    }

    @Test func eachChangeIsAnEventWithTheNextSeqOnceInEveryMembersFeed() async throws {
        try await withServer { api in
            let (alice, bob, carol, dave, id) = try await group(api)
            try await api.send(alice.token, to: id, localId: "m1")
            let added = try await change(api, alice.token, "/v1/conversations/\(id)/members", MembershipRequest(localId: "a1", emails: ["DAVE@example.com"]))
            #expect(added.status == .created, "\(added.text)")
            let event = try #require(try decode(MembershipResponse.self, added).message)
            #expect(event.seq == 2 && event.text == "Alice added Dave")
            #expect(event.membership == MembershipEvent(kind: .added, userIds: [dave.user.id]))
            #expect(try decode(MembershipResponse.self, added).conversation?.members.count == 4)

            // The same localId again: the original, not a second event.
            let again = try await change(api, alice.token, "/v1/conversations/\(id)/members", MembershipRequest(localId: "a1", emails: ["dave@example.com"]))
            #expect(again.status == .ok)
            #expect(try decode(MembershipResponse.self, again).status == .duplicate)
            #expect(try decode(MembershipResponse.self, again).message?.id == event.id)
            // A new localId for someone already in: nothing to change, no event.
            let noop = try await change(api, bob.token, "/v1/conversations/\(id)/members", MembershipRequest(localId: "a2", emails: ["dave@example.com"]))
            #expect(try decode(MembershipResponse.self, noop).status == .unchanged)

            let renamed = try await change(api, bob.token, "/v1/conversations/\(id)/rename", MembershipRequest(localId: "r1", name: "  Ops  "))
            #expect(try decode(MembershipResponse.self, renamed).message?.text == #"Bob renamed the group to "Ops""#)
            #expect(try decode(MembershipResponse.self, renamed).conversation?.name == "Ops")
            let removed = try await change(api, alice.token, "/v1/conversations/\(id)/members/remove", MembershipRequest(localId: "x1", emails: ["carol@example.com"]))
            #expect(try decode(MembershipResponse.self, removed).message?.text == "Alice removed Carol")
            let left = try await change(api, dave.token, "/v1/conversations/\(id)/leave", MembershipRequest(localId: "l1"))
            #expect(try decode(MembershipResponse.self, left).message?.text == "Dave left")
            #expect(try decode(MembershipResponse.self, left).conversation == nil)

            // Gapless: 1 message and 4 events, seqs 1...5.
            let page = try await api.messages(bob.token, in: id)
            #expect(page.messages.map(\.seq) == [1, 2, 3, 4, 5])
            #expect(page.messages.compactMap(\.membership?.kind) == [.added, .renamed, .removed, .left])
            // Bob's feed has each once; carol's stops at her removal, dave's at his leaving.
            let bobs = try await api.sync(bob.token, query: "after=0").events.compactMap(\.message).filter { $0.membership != nil }
            #expect(bobs.map(\.seq) == [2, 3, 4, 5])
            let carols = try await api.sync(carol.token, query: "after=0").events.compactMap(\.message)
            #expect(carols.isEmpty, "a removed member's feed shows nothing of the group: \(carols.map(\.text))")
            let members = try decode(MembersResponse.self, try await api.call(.get, "/v1/conversations/\(id)/members", token: bob.token))
            #expect(members.members.map(\.user.email) == ["alice@example.com", "bob@example.com"])
            #expect(members.name == "Ops")
        }
    }

    @Test func removedAndLeftMembersGetTheNonMembers404AndAReAddSeesEverything() async throws {
        try await withServer { api in
            let (alice, _, carol, _, id) = try await group(api)
            try await api.send(alice.token, to: id, localId: "m1")
            try await api.send(carol.token, to: id, localId: "c0", text: "before")
            #expect(try await api.call(.get, "/v1/conversations/\(id)/messages", token: carol.token).status == .ok)
            _ = try await change(api, alice.token, "/v1/conversations/\(id)/members/remove", MembershipRequest(localId: "x1", emails: ["carol@example.com"]))
            let unknown = try await api.call(.get, "/v1/conversations/999999/messages", token: carol.token)
            for path in ["/v1/conversations/\(id)/messages", "/v1/conversations/\(id)", "/v1/conversations/\(id)/members"] {
                let response = try await api.call(.get, path, token: carol.token)
                try expectError(response, .notFound, code: "not_found")
                #expect(response.text == unknown.text)
            }
            try expectError(
                try await api.call(.post, "/v1/conversations/\(id)/messages", token: carol.token, raw: #"{"localId":"c1","text":"still here?"}"#),
                .notFound, code: "not_found")
            // Even a resend of a message she sent before: the 404 on every route of the group.
            let resent = try await api.call(.post, "/v1/conversations/\(id)/messages", token: carol.token, raw: #"{"localId":"c0","text":"before"}"#)
            try expectError(resent, .notFound, code: "not_found")
            #expect(resent.text == unknown.text)
            try expectError(
                try await change(api, carol.token, "/v1/conversations/\(id)/members", MembershipRequest(localId: "c2", emails: ["carol@example.com"])),
                .notFound, code: "not_found")
            // Added again: the whole history, from seq 1.
            _ = try await change(api, alice.token, "/v1/conversations/\(id)/members", MembershipRequest(localId: "a1", emails: ["carol@example.com"]))
            let page = try await api.messages(carol.token, in: id)
            #expect(page.messages.map(\.seq) == [1, 2, 3, 4])
        }
    }

    /// A removal that lands while a poll of the group is between its access check and its
    /// wait ends the poll with the non-member's 404 at once. Such a poll was refused as a
    /// reset database's (its cursor's event checked as the viewer's, who was no longer in
    /// the group), or, with that mended, slept its whole wait: its feed no longer held the
    /// group, and the removal had woken it before it waited.
    ///
    /// The poll's cursor check queues on the feed's reader behind other reads, and the
    /// removal commits meanwhile (the writer is another connection).
    @Test func aRemovalDuringAPollsChecksEndsItAtOnce() async throws {
        try await withServer { api in
            let (alice, bob, carol, _, id) = try await group(api)
            for n in 0..<600 { try await api.send(alice.token, to: id, localId: "m\(n)") }
            let clock = ContinuousClock()
            for round in 0..<4 {
                let start = try await api.sync(carol.token, query: "conversation=\(id)&last=0")
                let check = try #require(start.cursorCheck)
                // Pages of 500 events at 30 cursors: 30 reads, not one shared.
                let busy = (0..<30).map { after in Task { try await api.call(.get, "/v1/sync?after=\(after)", token: bob.token) } }
                try await Task.sleep(for: .milliseconds(2))
                let poll = Task {
                    try await api.call(.get, "/v1/sync?conversation=\(id)&after=\(start.cursor)&check=\(check)&wait=5", token: carol.token)
                }
                try await Task.sleep(for: .milliseconds(2))
                let removed = try await change(
                    api, alice.token, "/v1/conversations/\(id)/members/remove", MembershipRequest(localId: "x\(round)", emails: ["carol@example.com"]))
                #expect(removed.status == .created, "\(removed.text)")
                let removedAt = clock.now
                let answer = try await poll.value
                let late = clock.now - removedAt
                #expect(answer.status == .notFound && answer.text.contains("\"not_found\""), "round \(round): \(answer.status) \(answer.text)")
                #expect(late < .seconds(2), "round \(round): the poll answered \(late) after the removal")
                for read in busy { _ = try await read.value }
                _ = try await change(
                    api, alice.token, "/v1/conversations/\(id)/members", MembershipRequest(localId: "a\(round)", emails: ["carol@example.com"]))
            }
        }
    }

    /// A whole-feed cursor on an event of a group its viewer was removed from, or left, is
    /// still this history's: the next poll goes on from it. It was refused as a restored or
    /// reset database's, and `tail -f` started again from the newest messages, repeating them.
    @Test func aCursorOnAGroupItsViewerLeftIsStillThisHistorys() async throws {
        try await withServer { api in
            let (alice, _, carol, dave, id) = try await group(api)
            _ = try await change(api, alice.token, "/v1/conversations/\(id)/members", MembershipRequest(localId: "a1", emails: ["dave@example.com"]))
            try await api.send(alice.token, to: id, localId: "m1")
            let carolAt = try await api.sync(carol.token, query: "after=0")
            let daveAt = try await api.sync(dave.token, query: "after=0")
            _ = try await change(api, alice.token, "/v1/conversations/\(id)/members/remove", MembershipRequest(localId: "x1", emails: ["carol@example.com"]))
            _ = try await change(api, dave.token, "/v1/conversations/\(id)/leave", MembershipRequest(localId: "l1"))
            for (who, at) in [(carol, carolAt), (dave, daveAt)] {
                #expect(at.events.last?.message?.localId == "m1")
                let check = try #require(at.cursorCheck)
                let next = try await api.call(.get, "/v1/sync?after=\(at.cursor)&check=\(check)", token: who.token)
                #expect(next.status == .ok, "\(who.user.email): \(next.text)")
                #expect((try? decode(SyncResponse.self, next))?.events.isEmpty == true)
            }
        }
    }

    @Test func refusals() async throws {
        try await withServer { api in
            let (alice, bob, _, _, id) = try await group(api)
            let direct = try await api.openDirect(alice.token, with: "bob@example.com").conversation.id
            try expectError(
                try await change(api, alice.token, "/v1/conversations/\(direct)/members", MembershipRequest(localId: "d1", emails: ["dave@example.com"])),
                .conflict, code: "direct_conversation")
            try expectError(
                try await change(api, alice.token, "/v1/conversations/\(id)/members", MembershipRequest(localId: "u1", emails: ["nobody@example.com"])),
                .notFound, code: "user_not_found")
            try expectError(
                try await change(api, alice.token, "/v1/conversations/\(id)/members/remove", MembershipRequest(localId: "s1", emails: ["alice@example.com"])),
                .badRequest, code: "invalid_members")
            try expectError(
                try await change(api, alice.token, "/v1/conversations/\(id)/rename", MembershipRequest(localId: "n1", name: "   ")),
                .badRequest, code: "invalid_name")
            // A bot joins through its owner only.
            let bot = try decode(CreatedToken.self, try await api.call(
                .post, "/v1/bots", token: alice.token, json: CreateBotRequest(name: "deploy", scope: .send)))
            try expectError(
                try await change(api, bob.token, "/v1/conversations/\(id)/members", MembershipRequest(localId: "b1", emails: [bot.user.email])),
                .forbidden, code: "not_bot_owner")
            let byOwner = try await change(api, alice.token, "/v1/conversations/\(id)/members", MembershipRequest(localId: "b2", emails: [bot.user.email]))
            #expect(byOwner.status == .created, "\(byOwner.text)")
            // An event is nobody's words: it can't be edited or reacted to.
            let event = try #require(try decode(MembershipResponse.self, byOwner).message)
            let edit = try await api.call(
                .post, "/v1/messages/changes", token: alice.token,
                json: ChangesRequest(changes: [ChangeItem(localId: "e1", kind: .edit, conversationId: id, seq: event.seq, text: "forged")]))
            #expect(try decode(ChangesResponse.self, edit).results.first?.error?.code == "membership_event")
        }
    }
}
