import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NexusWire
import Testing

@testable import NexusServer

/// Webhooks in-process (the real-process tests are in Tests/IntegrationTests/Commands/Hook/WebhookTests).
@Suite(.timeLimit(.minutes(5)))
struct WebhookServerTests {
    /// A receiver that has failed for a day gets its hook disabled, with a reason `hook list` shows.
    @Test func anOutgoingHookFailingForADayIsDisabledWithAReason() async throws {
        let clock = TestClock()
        try await withServer(clock: clock.read) { api in
            let (alice, _, conversation) = try await api.pair()
            // Port 1 on loopback: nothing listens, so every try is refused at once.
            let created = try await api.call(
                .post, "/v1/hooks", token: alice.token,
                json: CreateHookRequest(conversationId: conversation, name: "ci", url: "http://127.0.0.1:1/hook"))
            #expect(created.status == .created, "\(created.text)")
            try await api.send(alice.token, to: conversation, localId: "one")

            func hook() async throws -> Webhook? {
                try decode(HooksResponse.self, try await api.call(.get, "/v1/hooks", token: alice.token)).hooks.first
            }
            func attempts() async throws -> [HookAttempt] {
                try decode(HookDeliveriesResponse.self, try await api.call(.get, "/v1/hooks/ci/deliveries", token: alice.token)).attempts
            }
            var tried = false
            for _ in 0..<300 where !tried {
                tried = try await !attempts().isEmpty
                if !tried { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(tried, "the first delivery was never tried")
            #expect(try await attempts().first?.error == "connection refused")
            #expect(try await hook()?.disabledReason == nil)

            // A day and an hour later, the next failure gives up on the hook.
            clock.advance(seconds: 25 * 3600)
            var reason: String?
            for _ in 0..<300 where reason == nil {
                reason = try await hook()?.disabledReason
                if reason == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            let text = try #require(reason, "the hook was not disabled")
            #expect(text.contains("1 day"), "\(text)")
            #expect(text.contains("connection refused"), "\(text)")
            #expect(try await hook()?.disabledAt != nil)
            #expect(try await hook()?.pending == 1)
        }
    }

    /// A hook's bot has no password: nothing logs in as it.
    @Test func anIncomingHooksBotCannotLogIn() async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            let created = try decode(
                CreateHookResponse.self,
                try await api.call(.post, "/v1/hooks", token: alice.token, json: CreateHookRequest(conversationId: conversation)))
            #expect(created.hook.name == "\(conversation)-in")
            let conversationNow = try decode(Conversation.self, try await api.call(.get, "/v1/conversations/\(conversation)", token: bob.token))
            let bot = try #require(conversationNow.members.first { $0.id == created.hook.botUserId })
            #expect(bot.displayName == created.hook.name)
            for password in ["", "!", "correct horse"] {
                #expect(try await api.login(bot.email, password: password).status != .ok)
            }
            // A second unnamed hook gets the next free name.
            let second = try decode(
                CreateHookResponse.self,
                try await api.call(.post, "/v1/hooks", token: alice.token, json: CreateHookRequest(conversationId: conversation)))
            #expect(second.hook.name == "\(conversation)-in-2")
            let taken = try await api.call(.post, "/v1/hooks", token: alice.token, json: CreateHookRequest(conversationId: conversation, name: "\(conversation)-in"))
            try expectError(taken, .conflict, code: "hook_name_taken")
            let bad = try await api.call(.post, "/v1/hooks", token: alice.token, json: CreateHookRequest(conversationId: conversation, name: "no spaces"))
            try expectError(bad, .badRequest, code: "invalid_hook_name")
            let url = try await api.call(.post, "/v1/hooks", token: alice.token, json: CreateHookRequest(conversationId: conversation, url: "ftp://x"))
            try expectError(url, .badRequest, code: "invalid_url")
        }
    }

    /// Once its bot is removed from the conversation, a hook posts nothing, not even a
    /// repeat of an earlier post: 403 with the fix, checked as the message is stored.
    @Test func anIncomingHookWhoseBotWasRemovedPostsNothing() async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com", name: "Alice")
            _ = try await api.register("bob@example.com", name: "Bob")
            _ = try await api.register("carol@example.com", name: "Carol")
            let opened = try await api.call(
                .post, "/v1/conversations", token: alice.token,
                json: CreateConversationRequest(kind: .group, members: ["bob@example.com", "carol@example.com"], name: "Ops"))
            #expect(opened.status == .created, "\(opened.text)")
            let group = try decode(ConversationResponse.self, opened).conversation.id
            let created = try decode(
                CreateHookResponse.self,
                try await api.call(.post, "/v1/hooks", token: alice.token, json: CreateHookRequest(conversationId: group)))
            let path = try #require(created.path)
            func post(_ text: String, key: String) async throws -> TestResponse {
                try await api.client.executeRequest(
                    uri: path, method: .post, headers: [.contentType: "text/plain", HTTPField.Name("Idempotency-Key")!: key],
                    body: ByteBuffer(string: text))
            }
            #expect(try await post("disk full", key: "k1").status == .created)
            let members = try decode(Conversation.self, try await api.call(.get, "/v1/conversations/\(group)", token: alice.token)).members
            let bot = try #require(members.first { $0.id == created.hook.botUserId })
            let removed = try await api.call(
                .post, "/v1/conversations/\(group)/members/remove", token: alice.token,
                json: MembershipRequest(localId: "r1", emails: [bot.email]))
            #expect(removed.status == .created, "\(removed.text)")

            _ = try expectError(try await post("disk still full", key: "k2"), .forbidden, code: "bot_not_member")
            _ = try expectError(try await post("disk full", key: "k1"), .forbidden, code: "bot_not_member")
            let texts = try await api.messages(alice.token, in: group).messages.map(\.text)
            #expect(texts.contains("disk full") && !texts.contains("disk still full"))
        }
    }

    /// A hook's events are checked at the edge: none of them, an unknown one, or events for an
    /// incoming hook are 400 `invalid_events`, and nothing is made; a choice of all is stored as
    /// no choice, so a kind added later reaches it too.
    @Test func aHooksEventsAreCheckedAndListed() async throws {
        try await withServer { api in
            let (alice, _, conversation) = try await api.pair()
            let url = "http://127.0.0.1:1/hook"
            for events: [String]? in [[], ["message", "typing"], ["Message"]] {
                let r = try await api.call(.post, "/v1/hooks", token: alice.token, json: CreateHookRequest(conversationId: conversation, url: url, events: events))
                try expectError(r, .badRequest, code: "invalid_events")
            }
            let incoming = try await api.call(.post, "/v1/hooks", token: alice.token, json: CreateHookRequest(conversationId: conversation, events: ["message"]))
            try expectError(incoming, .badRequest, code: "invalid_events")
            for (name, events) in [("some", ["reaction", "message", "reaction"]), ("every", Webhook.eventKinds)] {
                let r = try await api.call(
                    .post, "/v1/hooks", token: alice.token, json: CreateHookRequest(conversationId: conversation, name: name, url: url, events: events))
                #expect(r.status == .created, "\(r.text)")
            }
            let hooks = try decode(HooksResponse.self, try await api.call(.get, "/v1/hooks", token: alice.token)).hooks
            #expect(hooks.map(\.name) == ["some", "every"])
            #expect(hooks.map(\.events) == [["message", "reaction"], Webhook.eventKinds])
        }
    }
}
