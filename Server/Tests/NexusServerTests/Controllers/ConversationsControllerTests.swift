import Foundation
import HTTPTypes
import NexusCore
import NexusWire
import Testing

@testable import NexusServer

struct ConversationsControllerTests {
    @Test func directCreateIsIdempotentFromEitherSide() async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com", name: "Alice")
            let bob = try await api.register("bob@example.com", name: "Bob")

            let first = try await api.call(.post, "/v1/conversations", token: alice.token, json: CreateConversationRequest(kind: .direct, members: ["bob@example.com"]))
            #expect(first.status == .created)
            let created = try decode(ConversationResponse.self, first)
            #expect(created.created)
            #expect(created.conversation.kind == .direct)
            #expect(created.conversation.members.map(\.id) == [alice.user.id, bob.user.id])
            #expect(created.conversation.lastSeq == 0)
            #expect(created.conversation.lastMessage == nil)
            #expect(created.conversation.title(viewer: alice.user.id) == "Bob")

            let again = try await api.call(.post, "/v1/conversations", token: alice.token, json: CreateConversationRequest(kind: .direct, members: ["BOB@example.com"]))
            #expect(again.status == .ok)
            let existing = try decode(ConversationResponse.self, again)
            #expect(!existing.created)
            #expect(existing.conversation.id == created.conversation.id)

            let fromBob = try await api.openDirect(bob.token, with: "alice@example.com")
            #expect(!fromBob.created)
            #expect(fromBob.conversation.id == created.conversation.id)
        }
    }

    @Test func concurrentCreatesGiveOneConversation() async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com")
            let bob = try await api.register("bob@example.com")
            async let a1 = api.openDirect(alice.token, with: "bob@example.com")
            async let a2 = api.openDirect(alice.token, with: "bob@example.com")
            async let b1 = api.openDirect(bob.token, with: "alice@example.com")
            let results = try await [a1, a2, b1]
            #expect(Set(results.map(\.conversation.id)).count == 1)
            #expect(results.filter(\.created).count == 1)

            let list = try decode(ConversationsResponse.self, try await api.call(.get, "/v1/conversations", token: alice.token))
            #expect(list.conversations.map(\.id) == [results[0].conversation.id])
        }
    }

    @Test func unknownEmailIsUserNotFound() async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com")
            let response = try await api.call(
                .post, "/v1/conversations", token: alice.token, json: CreateConversationRequest(kind: .direct, members: ["ghost@example.com"]))
            try expectError(response, .notFound, code: "user_not_found")
        }
    }

    struct BadCreate: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var body: String
        var code: String
    }

    static let badCreates: [BadCreate] = [
        .init(testDescription: "with yourself", body: #"{"kind":"direct","members":["alice@example.com"]}"#, code: "invalid_members"),
        .init(testDescription: "no members", body: #"{"kind":"direct","members":[]}"#, code: "invalid_members"),
        .init(
            testDescription: "two members", body: #"{"kind":"direct","members":["bob@example.com","bob@example.com"]}"#,
            code: "invalid_members"),
        .init(testDescription: "group of one other", body: #"{"kind":"group","members":["bob@example.com"],"name":"g"}"#, code: "invalid_members"),
        .init(testDescription: "unknown kind", body: #"{"kind":"channel","members":["bob@example.com"]}"#, code: "invalid_body"),
        .init(testDescription: "missing members", body: #"{"kind":"direct"}"#, code: "invalid_body"),
        .init(testDescription: "not JSON", body: "direct bob", code: "invalid_body"),
    ]

    @Test(arguments: badCreates)
    func invalidCreateIsABadRequest(_ bad: BadCreate) async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com")
            _ = try await api.register("bob@example.com")
            try expectError(try await api.call(.post, "/v1/conversations", token: alice.token, raw: bad.body), .badRequest, code: bad.code)
        }
    }

    @Test func listShowsTheLastMessageNewestFirst() async throws {
        try await withServer { api in
            let (alice, _, withBob) = try await api.pair()
            _ = try await api.register("carol@example.com")
            let withCarol = try await api.openDirect(alice.token, with: "carol@example.com").conversation.id
            let c1 = try await api.send(alice.token, to: withCarol, localId: "c1").response.message
            // Timestamps have millisecond resolution: the second update comes once the
            // clock has passed the first's.
            while Timestamp.now() <= c1.sentAt { await Task.yield() }
            let b1 = try await api.send(alice.token, to: withBob, localId: "b1", text: "hi bob").response.message
            #expect(b1.sentAt > c1.sentAt)

            let list = try decode(ConversationsResponse.self, try await api.call(.get, "/v1/conversations", token: alice.token))
            #expect(list.conversations.map(\.id) == [withBob, withCarol])
            let first = try #require(list.conversations.first)
            #expect(first.lastSeq == 1)
            #expect(first.lastMessage?.text == "hi bob")
            #expect(first.updatedAt == first.lastMessage?.sentAt)

            let shown = try await api.call(.get, "/v1/conversations/\(withBob)", token: alice.token)
            #expect(shown.status == .ok)
            // The full conversation says what its list entry says.
            #expect(try decode(Conversation.self, shown).summary(viewer: alice.user.id) == first)
            #expect(list.users.map(\.email) == ["alice@example.com", "bob@example.com", "carol@example.com"])
        }
    }

    @Test func nonNumericIdIsNotFound() async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com")
            try expectError(try await api.call(.get, "/v1/conversations/abc", token: alice.token), .notFound, code: "not_found")
        }
    }
}

/// A conversation you are not in does not exist, as far as you can tell: the same 404
/// as for an id nobody has, on every endpoint that takes a conversation.
struct NonMemberTests {
    struct Endpoint: Sendable, CustomTestStringConvertible {
        var method: HTTPRequest.Method
        /// `ID` stands for the conversation id.
        var path: String
        var body: String?
        var testDescription: String { "\(method) \(path)" }
    }

    static let endpoints: [Endpoint] = [
        .init(method: .get, path: "/v1/conversations/ID"),
        .init(method: .get, path: "/v1/conversations/ID/messages"),
        .init(method: .post, path: "/v1/conversations/ID/messages", body: #"{"localId":"intruder-1","text":"hello?"}"#),
        .init(method: .get, path: "/v1/sync?conversation=ID"),
        .init(method: .get, path: "/v1/sync?conversation=ID&last=5"),
    ]

    @Test(arguments: endpoints)
    func nonMemberGetsNotFound(_ endpoint: Endpoint) async throws {
        try await withServer { api in
            let (alice, _, conversation) = try await api.pair()
            try await api.send(alice.token, to: conversation, localId: "secret", text: "for bob only")
            let carol = try await api.register("carol@example.com")

            let theirs = try await api.call(
                endpoint.method, endpoint.path.replacingOccurrences(of: "ID", with: "\(conversation)"), token: carol.token, raw: endpoint.body)
            let missing = try await api.call(
                endpoint.method, endpoint.path.replacingOccurrences(of: "ID", with: "999999"), token: carol.token, raw: endpoint.body)
            let a = try expectError(theirs, .notFound, code: "not_found")
            let b = try expectError(missing, .notFound, code: "not_found")
            #expect(a.error.message == b.error.message)
            #expect(!theirs.text.contains("for bob only"))

            // The intruder's send left no trace.
            let page = try await api.messages(alice.token, in: conversation)
            #expect(page.messages.map(\.localId) == ["secret"])
        }
    }

    @Test func nonMemberSeesNothingInTheFeed() async throws {
        try await withServer { api in
            let (alice, _, conversation) = try await api.pair()
            try await api.send(alice.token, to: conversation, localId: "m1")
            let carol = try await api.register("carol@example.com")
            let feed = try await api.sync(carol.token, query: "after=0")
            #expect(feed.events.isEmpty)
            #expect(feed.cursor == 0)
            let last = try await api.sync(carol.token, query: "last=10")
            #expect(last.events.isEmpty)
            #expect(last.cursor == 0)
        }
    }
}
