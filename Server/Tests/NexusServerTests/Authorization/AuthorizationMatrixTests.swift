import Foundation
import HTTPTypes
import HummingbirdTesting
import NexusWire
import Testing

@testable import NexusServer

/// Every endpoint that takes a conversation (or one of its messages), called by every kind
/// of caller. Members get their answer; non-members, and members removed from the group
/// (members removed or left), get exactly what an unknown id gets, so they learn nothing; the rest get
/// 401, an expired token with its own code.
struct AuthorizationMatrixTests {
    enum Caller: String, CaseIterable, Sendable {
        case member, nonMember, removed, loggedOut, revoked, expired
    }

    struct Endpoint: Sendable, CustomTestStringConvertible {
        var method: HTTPTypes.HTTPRequest.Method
        /// `{c}` is the conversation id, `{m}` the id of a message in it.
        var path: String
        var body: String? = nil
        var memberStatus: HTTPTypes.HTTPResponse.Status
        /// The non-member's answer when it is not a plain 404 `not_found`.
        var nonMemberCode = "not_found"
        var testDescription: String { "\(method) \(path)" }
    }

    static let endpoints: [Endpoint] = [
        Endpoint(method: .get, path: "/v1/conversations/{c}", memberStatus: .ok),
        Endpoint(method: .post, path: "/v1/conversations/{c}/messages", body: #"{"localId":"matrix-1","text":"hi"}"#, memberStatus: .created),
        Endpoint(method: .get, path: "/v1/conversations/{c}/messages", memberStatus: .ok),
        Endpoint(method: .get, path: "/v1/conversations/{c}/messages?beforeId={m}", memberStatus: .ok),
        Endpoint(method: .post, path: "/v1/conversations/{c}/receipts", body: #"{"read":1}"#, memberStatus: .ok),
        Endpoint(method: .post, path: "/v1/conversations/{c}/typing", memberStatus: .ok),
        Endpoint(method: .get, path: "/v1/sync?conversation={c}", memberStatus: .ok),
        Endpoint(method: .get, path: "/v1/sync?conversation={c}&last=5", memberStatus: .ok),
        // A member's contacts' presence; a non-member learns nothing of it.
        Endpoint(method: .get, path: "/v1/sync?conversation={c}&presence=", memberStatus: .ok),
        Endpoint(method: .get, path: "/v1/messages/{m}/status", memberStatus: .ok, nonMemberCode: "message_not_found"),
        Endpoint(method: .post, path: "/v1/hooks", body: #"{"conversationId":{c}}"#, memberStatus: .created),
        // Message 2 carries a file (see `sendWithFile`).
        Endpoint(method: .get, path: "/v1/conversations/{c}/messages/2/attachments/0", memberStatus: .ok),
        // The group's members and changes to them.
        Endpoint(method: .get, path: "/v1/conversations/{c}/members", memberStatus: .ok),
        Endpoint(method: .post, path: "/v1/conversations/{c}/members", body: #"{"localId":"matrix-add","emails":["frank@example.com"]}"#, memberStatus: .created),
        Endpoint(method: .post, path: "/v1/conversations/{c}/members/remove", body: #"{"localId":"matrix-remove","emails":["erin@example.com"]}"#, memberStatus: .created),
        Endpoint(method: .post, path: "/v1/conversations/{c}/leave", body: #"{"localId":"matrix-leave"}"#, memberStatus: .created),
        Endpoint(method: .post, path: "/v1/conversations/{c}/rename", body: #"{"localId":"matrix-rename","name":"Ops"}"#, memberStatus: .created),
        // One's own mute of a conversation one is in.
        Endpoint(method: .put, path: "/v1/conversations/{c}/mute", body: #"{}"#, memberStatus: .ok),
        Endpoint(method: .delete, path: "/v1/conversations/{c}/mute", memberStatus: .ok),
    ]

    /// The whole matrix for one endpoint. The expired token and the revoked one belong to a
    /// member, so only the token itself can be what refuses them.
    @Test(arguments: endpoints)
    func matrix(_ endpoint: Endpoint) async throws {
        let clock = TestClock()
        var limits = ServerLimits()
        limits.tokenTTLSeconds = 3600
        try await withServer(clock: clock.read, limits: limits) { api in
            let bob = try await api.register("bob@example.com")
            _ = try await api.register("alice@example.com")
            _ = try await api.register("carol@example.com")
            let expired = bob.token
            clock.advance(seconds: 3601)
            let alice = try decode(AuthResponse.self, try await api.login("alice@example.com"))
            let bobNow = try decode(AuthResponse.self, try await api.login("bob@example.com"))
            let carol = try decode(AuthResponse.self, try await api.login("carol@example.com"))
            let revoked = try decode(AuthResponse.self, try await api.login("bob@example.com")).token
            #expect(try await api.call(.post, "/v1/logout", token: revoked).status == .noContent)

            // A group, so that dave can be removed from it (after the two messages, which
            // keep seqs 1 and 2): the removed member of the matrix.
            let dave = try await api.register("dave@example.com")
            _ = try await api.register("erin@example.com")
            _ = try await api.register("frank@example.com")
            let created = try await api.call(
                .post, "/v1/conversations", token: alice.token,
                json: CreateConversationRequest(kind: .group, members: ["bob@example.com", "dave@example.com", "erin@example.com"]))
            let conversation = try decode(ConversationResponse.self, created).conversation.id
            let message = try await api.send(alice.token, to: conversation, localId: "first").response.message.id
            try await api.sendWithFile(alice.token, to: conversation, localId: "second", bytes: "hello")
            #expect(try await api.call(.get, "/v1/conversations/\(conversation)", token: dave.token).status == .ok)
            let removal = try await api.call(
                .post, "/v1/conversations/\(conversation)/members/remove", token: alice.token,
                json: MembershipRequest(localId: "remove-dave", emails: ["dave@example.com"]))
            #expect(removal.status == .created, "\(removal.text)")
            // A body may name the conversation too (POST /v1/hooks).
            func body(_ c: Int64) -> String? { endpoint.body?.replacingOccurrences(of: "{c}", with: "\(c)") }
            let path = endpoint.path.replacingOccurrences(of: "{c}", with: "\(conversation)")
                .replacingOccurrences(of: "{m}", with: "\(message)")

            for caller in Caller.allCases {
                let token: String? = switch caller {
                case .member: bobNow.token
                case .nonMember: carol.token
                case .removed: dave.token
                case .loggedOut: nil
                case .revoked: revoked
                case .expired: expired
                }
                let response = try await api.call(endpoint.method, path, token: token, raw: body(conversation))
                switch caller {
                case .member:
                    #expect(response.status == endpoint.memberStatus, "member: \(response.text)")
                case .nonMember, .removed:
                    try expectError(response, .notFound, code: endpoint.nonMemberCode)
                case .loggedOut, .revoked:
                    try expectError(response, .unauthorized, code: "unauthorized")
                case .expired:
                    try expectError(response, .unauthorized, code: "token_expired")
                }
            }

            // Learn nothing: a non-member's answer is the very answer for an id that does not exist.
            let unknown = endpoint.path.replacingOccurrences(of: "{c}", with: "999999").replacingOccurrences(of: "{m}", with: "999999")
            let forCarol = try await api.call(endpoint.method, path, token: carol.token, raw: body(conversation))
            let forNothing = try await api.call(endpoint.method, unknown, token: carol.token, raw: body(999999))
            #expect(forCarol.status == forNothing.status)
            #expect(forCarol.text == forNothing.text)
            let forDave = try await api.call(endpoint.method, path, token: dave.token, raw: body(conversation))
            let forNothingDave = try await api.call(endpoint.method, unknown, token: dave.token, raw: body(999999))
            #expect(forDave.status == forNothingDave.status)
            #expect(forDave.text == forNothingDave.text)
        }
    }

    /// A batch item for a conversation the caller is not in is rejected with the same 404,
    /// and the conversation list never shows it.
    @Test func nonMembersSeeNothingInBatchesOrLists() async throws {
        try await withServer { api in
            let (_, _, conversation) = try await api.pair()
            let carol = try await api.register("carol@example.com")
            let batch = try await api.call(
                .post, "/v1/messages/batch", token: carol.token,
                json: BatchSendRequest(messages: [BatchItem(conversationId: conversation, localId: "x", text: "sneaky")]))
            #expect(batch.status == .ok)
            let result = try #require(try decode(BatchSendResponse.self, batch).results.first)
            #expect(result.status == .rejected)
            #expect(result.httpStatus == 404)
            #expect(result.error?.code == "not_found")
            let list = try decode(ConversationsResponse.self, try await api.call(.get, "/v1/conversations", token: carol.token))
            #expect(list.conversations.isEmpty)
            #expect(try await api.sync(carol.token, query: "after=0").events.isEmpty)
        }
    }

    /// Search answers a non-member as it answers a query that matches nothing: 200 with no
    /// hits, whether the query names the conversation (`in`) or not, and the same bytes;
    /// callers without a valid token get 401 as everywhere.
    @Test func searchShowsOnlyTheCallersConversations() async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            let carol = try await api.register("carol@example.com")
            try await api.send(alice.token, to: conversation, localId: "s1", text: "the launch code is swordfish")
            let query = "/v1/search?q=swordfish"
            let member = try await api.call(.get, query, token: bob.token)
            #expect(member.status == .ok)
            #expect(try decode(SearchResponse.self, member).hits.count == 1)
            for path in [query, query + "&in=\(conversation)"] {
                let forCarol = try await api.call(.get, path, token: carol.token)
                let forNothing = try await api.call(.get, path.replacingOccurrences(of: "swordfish", with: "zzzznothing"), token: carol.token)
                #expect(forCarol.status == .ok)
                #expect(forCarol.text == forNothing.text)
                #expect(forCarol.text == #"{"hits":[]}"#)
            }
            let unknownConversation = try await api.call(.get, query + "&in=999999", token: carol.token)
            #expect(unknownConversation.text == #"{"hits":[]}"#)
            try expectError(try await api.call(.get, query), .unauthorized, code: "unauthorized")
            #expect(try await api.call(.post, "/v1/logout", token: bob.token).status == .noContent)
            try expectError(try await api.call(.get, query, token: bob.token), .unauthorized, code: "unauthorized")
        }
    }
}
