import Foundation
import HTTPTypes
import HummingbirdTesting
import NexusWire
import Testing

@testable import NexusServer

/// A bot joins a conversation through its owner only, also when a group is created
/// with it (POST /v1/conversations), as when it is added later (MembersController).
@Suite(.timeLimit(.minutes(5)))
struct GroupBotTests {
    @Test func aGroupIsCreatedWithABotByItsOwnerOnly() async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com", name: "Alice")
            let bob = try await api.register("bob@example.com", name: "Bob")
            _ = try await api.register("carol@example.com", name: "Carol")
            let bot = try decode(CreatedToken.self, try await api.call(
                .post, "/v1/bots", token: alice.token, json: CreateBotRequest(name: "deploy", scope: .send)))
            let before = try decode(ConversationsResponse.self, try await api.call(.get, "/v1/conversations", token: bob.token))

            let byBob = try await api.call(
                .post, "/v1/conversations", token: bob.token,
                json: CreateConversationRequest(kind: .group, members: ["carol@example.com", bot.user.email], name: "Ops"))
            try expectError(byBob, .forbidden, code: "not_bot_owner")
            #expect(byBob.text.contains("deploy"), "the answer names the bot: \(byBob.text)")
            // Nothing was created.
            let after = try decode(ConversationsResponse.self, try await api.call(.get, "/v1/conversations", token: bob.token))
            #expect(after.conversations.count == before.conversations.count)

            let byAlice = try await api.call(
                .post, "/v1/conversations", token: alice.token,
                json: CreateConversationRequest(kind: .group, members: ["bob@example.com", bot.user.email], name: "Ops"))
            #expect(byAlice.status == .created, "\(byAlice.text)")
            #expect(try decode(ConversationResponse.self, byAlice).conversation.members.contains { $0.id == bot.user.id })
        }
    }

    /// The authorization rows for bots: both routes that put a user into a conversation, each
    /// called by the bot's owner and by another member, give the same answers.
    @Test(arguments: ["create", "add"])
    func botOwnershipRows(_ route: String) async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com", name: "Alice")
            let bob = try await api.register("bob@example.com", name: "Bob")
            _ = try await api.register("carol@example.com", name: "Carol")
            let bot = try decode(CreatedToken.self, try await api.call(
                .post, "/v1/bots", token: alice.token, json: CreateBotRequest(name: "deploy", scope: .send)))
            let group = try decode(ConversationResponse.self, try await api.call(
                .post, "/v1/conversations", token: alice.token,
                json: CreateConversationRequest(kind: .group, members: ["bob@example.com", "carol@example.com"]))).conversation.id
            func call(_ token: String, _ localId: String) async throws -> TestResponse {
                route == "create"
                    ? try await api.call(
                        .post, "/v1/conversations", token: token,
                        json: CreateConversationRequest(kind: .group, members: ["carol@example.com", bot.user.email]))
                    : try await api.call(
                        .post, "/v1/conversations/\(group)/members", token: token,
                        json: MembershipRequest(localId: localId, emails: [bot.user.email]))
            }
            let other = try await call(bob.token, "b1")
            try expectError(other, .forbidden, code: "not_bot_owner")
            let owner = try await call(alice.token, "a1")
            #expect(owner.status == .created, "\(route) by the owner: \(owner.text)")
            // The same words on both routes.
            #expect(try decode(ErrorResponse.self, other).error.message
                == "deploy is someone else's bot; only its owner can add it to a conversation.")
        }
    }

    /// A bot answers for its owner, so a stranger can't open a direct conversation with it
    /// (and make it talk); its owner can, and so can whoever it already meets in a group.
    @Test func aDirectConversationWithABotIsForThoseWhoShareOneWithIt() async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com", name: "Alice")
            let bob = try await api.register("bob@example.com", name: "Bob")
            let carol = try await api.register("carol@example.com", name: "Carol")
            let bot = try decode(CreatedToken.self, try await api.call(
                .post, "/v1/bots", token: alice.token, json: CreateBotRequest(name: "deploy", scope: .send)))
            func direct(_ token: String) async throws -> TestResponse {
                try await api.call(.post, "/v1/conversations", token: token, json: CreateConversationRequest(kind: .direct, members: [bot.user.email]))
            }
            let stranger = try await direct(carol.token)
            try expectError(stranger, .forbidden, code: "not_bot_owner")
            #expect(stranger.text.contains("deploy"), "\(stranger.text)")
            #expect(try decode(ConversationsResponse.self, try await api.call(.get, "/v1/conversations", token: carol.token)).conversations.isEmpty)
            #expect(try await direct(alice.token).status == .created)
            try expectError(try await direct(bob.token), .forbidden, code: "not_bot_owner")
            let group = try await api.call(
                .post, "/v1/conversations", token: alice.token,
                json: CreateConversationRequest(kind: .group, members: ["bob@example.com", bot.user.email], name: "Ops"))
            #expect(group.status == .created, "\(group.text)")
            #expect(try await direct(bob.token).status == .created)
            try expectError(try await direct(carol.token), .forbidden, code: "not_bot_owner")
        }
    }
}
