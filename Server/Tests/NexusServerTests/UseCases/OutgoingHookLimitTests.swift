import Foundation
import HTTPTypes
import HummingbirdTesting
import NexusWire
import Testing

@testable import NexusServer

/// Outgoing hooks, bounded per member and per conversation (ServerLimits
/// maxOutgoingHooksPerMemberPerConversation and maxOutgoingHooksPerConversation): each
/// message is POSTed once per hook. Counted in each backend's transaction.
struct OutgoingHookLimitTests {
    func create(_ api: API, _ token: String, _ c: Int64, _ name: String) async throws -> TestResponse {
        try await api.call(.post, "/v1/hooks", token: token, json: CreateHookRequest(conversationId: c, name: name, url: "http://127.0.0.1:1/hook"))
    }

    @Test func aMemberAndAConversationTakeOnlySoManyOutgoingHooks() async throws {
        var limits = ServerLimits()
        limits.maxOutgoingHooksPerMemberPerConversation = 2
        limits.maxOutgoingHooksPerConversation = 3
        try await withServer(limits: limits) { api in
            let (alice, bob, c) = try await api.pair()
            for name in ["a1", "a2"] { #expect(try await create(api, alice.token, c, name).status == .created) }
            let mine = try expectError(try await create(api, alice.token, c, "a3"), .conflict, code: "too_many_hooks")
            #expect(mine.error.message.hasPrefix("You have 2 outgoing hooks here"), "\(mine.error.message)")

            #expect(try await create(api, bob.token, c, "b1").status == .created)
            let full = try expectError(try await create(api, bob.token, c, "b2"), .conflict, code: "too_many_hooks")
            #expect(full.error.message.hasPrefix("This conversation has 3 outgoing hooks here"), "\(full.error.message)")

            // A revoked hook no longer counts.
            #expect(try await api.call(.delete, "/v1/hooks/a1", token: alice.token).status == .ok)
            #expect(try await create(api, bob.token, c, "b2").status == .created)
        }
    }

    @Test func theDefaultsAre5AMemberAnd20AConversation() {
        #expect(ServerLimits().maxOutgoingHooksPerMemberPerConversation == 5)
        #expect(ServerLimits().maxOutgoingHooksPerConversation == 20)
    }
}
