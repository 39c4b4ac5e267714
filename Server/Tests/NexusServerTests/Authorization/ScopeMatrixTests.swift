import Foundation
import HTTPTypes
import NexusWire
import Synchronization
import Testing

@testable import NexusServer

/// The scope half of the authorization matrix: every authenticated route, called with a
/// session and with every scope of access token (read, send, all; over all conversations
/// or limited to another one), by a member and by a non-member. A route outside the table
/// fails `everyRouteHasARow`, so a new endpoint must say what it needs.
struct ScopeMatrixTests {
    enum Holder: String, CaseIterable, Sendable {
        case session, all, send, read
        /// Limited to a conversation other than the one asked about.
        case sendElsewhere, readElsewhere, allElsewhere
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var route: String
        /// `{c}` the conversation, `{m}` a message in it, `{n}` a unique number, `{t}` / `{b}`
        /// a token / bot of the holder's owner made for this call.
        var path: String
        var body: String? = nil
        var need: Permission?
        /// It names one conversation: a non-member gets the 404 of an unknown id.
        var conversational = false
        var testDescription: String { route }
    }

    static let rows: [Row] = [
        Row(route: "GET /v1/me", path: "/v1/me", need: nil),
        Row(route: "POST /v1/logout", path: "/v1/logout", need: nil),
        // The account itself: a session only. Kept sessions, so the owner's next calls work.
        Row(route: "PATCH /v1/me", path: "/v1/me", body: #"{"displayName":"Bob {n}"}"#, need: .account),
        Row(route: "POST /v1/me/password", path: "/v1/me/password",
            body: #"{"oldPassword":"correct horse","newPassword":"correct horse","keepSessions":true}"#, need: .account),
        // `{p}` the name of a complete upload of the holder's owner, the image of "hello".
        Row(route: "PUT /v1/me/picture", path: "/v1/me/picture", body: #"{"name":"me.png","size":5,"type":"image/png","sha256":"{p}"}"#,
            need: .account),
        Row(route: "DELETE /v1/me/picture", path: "/v1/me/picture", need: .account),
        // `{a}` alice, who has a picture: the directory's, so reading.
        Row(route: "GET /v1/users/{id}/picture", path: "/v1/users/{a}/picture", need: .read),
        Row(route: "GET /v1/users", path: "/v1/users", need: .read),
        Row(route: "POST /v1/conversations", path: "/v1/conversations", body: #"{"kind":"direct","members":["dave@example.com"]}"#, need: .all),
        Row(route: "GET /v1/conversations", path: "/v1/conversations", need: .read),
        Row(route: "GET /v1/conversations/{id}", path: "/v1/conversations/{c}", need: .read, conversational: true),
        Row(route: "POST /v1/conversations/{id}/messages", path: "/v1/conversations/{c}/messages",
            body: #"{"localId":"s-{n}","text":"hi"}"#, need: .send, conversational: true),
        Row(route: "GET /v1/conversations/{id}/messages", path: "/v1/conversations/{c}/messages", need: .read, conversational: true),
        Row(route: "POST /v1/messages/batch", path: "/v1/messages/batch",
            body: #"{"messages":[{"conversationId":{c},"localId":"b-{n}","text":"hi"}]}"#, need: .send),
        Row(route: "POST /v1/conversations/{id}/receipts", path: "/v1/conversations/{c}/receipts", body: #"{"read":1}"#,
            need: .read, conversational: true),
        Row(route: "POST /v1/conversations/{id}/typing", path: "/v1/conversations/{c}/typing", need: .send, conversational: true),
        Row(route: "GET /v1/messages/{id}/status", path: "/v1/messages/{m}/status", need: .read, conversational: true),
        Row(route: "GET /v1/messages/status", path: "/v1/messages/status?localId=bob-first", need: .read),
        Row(route: "GET /v1/sync", path: "/v1/sync?conversation={c}", need: .read, conversational: true),
        Row(route: "GET /v1/sync", path: "/v1/sync", need: .read),
        Row(route: "POST /v1/tokens", path: "/v1/tokens", body: #"{"name":"new-{n}","scope":"read"}"#, need: .manage),
        Row(route: "GET /v1/tokens", path: "/v1/tokens", need: .manage),
        Row(route: "DELETE /v1/tokens/{name}", path: "/v1/tokens/{t}", need: .manage),
        Row(route: "POST /v1/bots", path: "/v1/bots", body: #"{"name":"bot-{n}","scope":"send"}"#, need: .manage),
        Row(route: "GET /v1/bots", path: "/v1/bots", need: .manage),
        Row(route: "DELETE /v1/bots/{name}", path: "/v1/bots/{b}", need: .manage),
        // Message changes name their conversations in the body and answer per item, as a batch does.
        Row(route: "POST /v1/messages/changes", path: "/v1/messages/changes",
            body: #"{"changes":[{"conversationId":{c},"localId":"r-{n}","kind":"react","seq":1,"emoji":"👍"}]}"#, need: .send),
        Row(route: "GET /v1/search", path: "/v1/search?q=hi", need: .read),
        // A live client's goodbye only makes its own user offline sooner.
        Row(route: "DELETE /v1/presence/{client}", path: "/v1/presence/c{n}", need: nil),
        // Hooks hold secrets and post as bots: managed by a session only, like tokens.
        Row(route: "POST /v1/hooks", path: "/v1/hooks", body: #"{"conversationId":{c},"name":"new-{n}"}"#, need: .manage),
        Row(route: "GET /v1/hooks", path: "/v1/hooks", need: .manage),
        Row(route: "DELETE /v1/hooks/{name}", path: "/v1/hooks/{h}", need: .manage),
        Row(route: "GET /v1/hooks/{name}/deliveries", path: "/v1/hooks/{h}/deliveries", need: .manage),
        // An upload (of the owner's, begun for this call) is part of sending a file.
        Row(route: "POST /v1/uploads", path: "/v1/uploads", body: #"{"sha256":"{u}","size":10}"#, need: .send),
        Row(route: "GET /v1/uploads/{sha256}", path: "/v1/uploads/{u}", need: .send),
        Row(route: "PATCH /v1/uploads/{sha256}", path: "/v1/uploads/{u}?offset=0", body: "hello", need: .send),
        Row(route: "GET /v1/conversations/{id}/messages/{seq}/attachments/{index}", path: "/v1/conversations/{c}/messages/3/attachments/0",
            need: .read, conversational: true),
        // `{g}` is a group of alice, bob and dave made for the call. Listing
        // members is reading; changing them is what a person does (a session or scope all).
        Row(route: "GET /v1/conversations/{id}/members", path: "/v1/conversations/{g}/members", need: .read, conversational: true),
        Row(route: "POST /v1/conversations/{id}/members", path: "/v1/conversations/{g}/members",
            body: #"{"localId":"ga-{n}","emails":["dave@example.com"]}"#, need: .all, conversational: true),
        Row(route: "POST /v1/conversations/{id}/members/remove", path: "/v1/conversations/{g}/members/remove",
            body: #"{"localId":"gr-{n}","emails":["dave@example.com"]}"#, need: .all, conversational: true),
        Row(route: "POST /v1/conversations/{id}/leave", path: "/v1/conversations/{g}/leave", body: #"{"localId":"gl-{n}"}"#,
            need: .all, conversational: true),
        Row(route: "POST /v1/conversations/{id}/rename", path: "/v1/conversations/{g}/rename", body: #"{"localId":"gn-{n}","name":"Ops"}"#,
            need: .all, conversational: true),
        // A mute is the account's own setting, as a person keeps it.
        Row(route: "PUT /v1/conversations/{id}/mute", path: "/v1/conversations/{c}/mute", body: #"{"exceptMentions":true}"#,
            need: .all, conversational: true),
        Row(route: "DELETE /v1/conversations/{id}/mute", path: "/v1/conversations/{c}/mute", need: .all, conversational: true),
    ]

    @Test func everyRouteHasARow() async throws {
        let publicRoutes = Set(OpenAPITests.operations(OpenAPITests.specText).filter(\.isPublic).map { "\($0.method) \($0.path)" })
        let routes = try await OpenAPITests.serverRoutes().subtracting(publicRoutes)
        #expect(routes.subtracting(Self.rows.map(\.route)).sorted() == [], "routes with no row in the scope matrix")
    }

    /// What a holder may do, by the rules in docs/tokens.md, written out rather than
    /// asked of `Access`, so the test does not grade the code by itself.
    static func allowed(_ holder: Holder, _ need: Permission?) -> Bool {
        switch (holder, need) {
        case (.session, _), (_, nil): return true
        case (_, .manage), (_, .account): return false
        case (.all, _), (.allElsewhere, _): return true
        case (.read, .read), (.readElsewhere, .read), (.send, .send), (.sendElsewhere, .send): return true
        default: return false
        }
    }

    static func isLimited(_ holder: Holder) -> Bool { [.sendElsewhere, .readElsewhere, .allElsewhere].contains(holder) }

    @Test(arguments: rows)
    func matrix(_ row: Row) async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            let carol = try await api.register("carol@example.com")
            _ = try await api.register("dave@example.com")
            // Bob's other conversation: where the limited tokens point.
            let elsewhere = try await api.openDirect(bob.token, with: "carol@example.com").conversation.id
            let message = try await api.send(alice.token, to: conversation, localId: "first").response.message.id
            try await api.send(bob.token, to: conversation, localId: "bob-first")
            try await api.sendWithFile(alice.token, to: conversation, localId: "with-file", bytes: "hello")  // seq 3
            // The same bytes, uploaded in full by bob too (seq 4), and alice's picture.
            try await api.sendWithFile(bob.token, to: conversation, localId: "bob-file", bytes: "hello")
            let hello = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
            let picture = try await api.call(
                .put, "/v1/me/picture", token: alice.token, raw: #"{"name":"a.png","size":5,"type":"image/png","sha256":"\#(hello)"}"#)
            try #require(picture.status == .ok, "\(picture.text)")
            let counter = Mutex(0)

            /// A fresh token of `owner` for `holder`, so a logout or revoke by one call can't
            /// change the next.
            func token(_ holder: Holder, owner: AuthResponse) async throws -> String {
                if holder == .session {
                    return try decode(AuthResponse.self, try await api.login(owner.user.email)).token
                }
                let scope: TokenScope = switch holder {
                case .read, .readElsewhere: .read
                case .send, .sendElsewhere: .send
                default: .all
                }
                let n = counter.withLock { $0 += 1; return $0 }
                let limited = Self.isLimited(holder)
                let response = try await api.call(
                    .post, "/v1/tokens", token: owner.token,
                    json: CreateTokenRequest(name: "m-\(n)", scope: scope, conversations: limited ? [elsewhere] : nil))
                try #require(response.status == .created, "\(response.text)")
                return try decode(CreatedToken.self, response).token
            }

            func path(for owner: AuthResponse, conversation c: Int64) async throws -> (String, String?) {
                let n = counter.withLock { $0 += 1; return $0 }
                // A token and a bot to revoke or delete, made by the owner's session.
                _ = try await api.call(.post, "/v1/tokens", token: owner.token, raw: #"{"name":"victim-\#(n)","scope":"read"}"#)
                _ = try await api.call(.post, "/v1/bots", token: owner.token, raw: #"{"name":"victim-\#(n)","scope":"read"}"#)
                // A hook to revoke or list, and an upload of its own (a partial one: no hash is checked yet).
                _ = try await api.call(.post, "/v1/hooks", token: owner.token, raw: #"{"conversationId":\#(c),"name":"victim-\#(n)"}"#)
                let upload = String(repeating: "0", count: 64 - String(n, radix: 16).count) + String(n, radix: 16)
                var group: Int64 = 999_999
                if c != 999_999 && row.path.contains("{g}") {
                    let made = try await api.call(
                        .post, "/v1/conversations", token: alice.token,
                        json: CreateConversationRequest(kind: .group, members: ["bob@example.com", "dave@example.com"]))
                    group = try decode(ConversationResponse.self, made).conversation.id
                }
                _ = try await api.call(.post, "/v1/uploads", token: owner.token, raw: #"{"sha256":"\#(upload)","size":10}"#)
                func fill(_ s: String) -> String {
                    s.replacingOccurrences(of: "{c}", with: "\(c)").replacingOccurrences(of: "{m}", with: "\(message)")
                        .replacingOccurrences(of: "{n}", with: "\(n)").replacingOccurrences(of: "{t}", with: "victim-\(n)")
                        .replacingOccurrences(of: "{b}", with: "victim-\(n)").replacingOccurrences(of: "{h}", with: "victim-\(n)")
                        .replacingOccurrences(of: "{u}", with: upload).replacingOccurrences(of: "{g}", with: "\(group)")
                        .replacingOccurrences(of: "{p}", with: hello).replacingOccurrences(of: "{a}", with: "\(alice.user.id)")
                }
                return (fill(row.path), row.body.map(fill))
            }

            let method = try #require(HTTPRequest.Method(String(row.route.split(separator: " ")[0])))
            for holder in Holder.allCases {
                // The member: its answer, or 403 insufficient_scope.
                let (uri, body) = try await path(for: bob, conversation: conversation)
                let response = try await api.call(method, uri, token: try await token(holder, owner: bob), raw: body)
                let limitedOut = Self.isLimited(holder) && (row.conversational || row.route == "POST /v1/conversations"
                    || row.path == "/v1/sync" || row.route == "GET /v1/messages/status")
                if Self.allowed(holder, row.need) && !limitedOut {
                    #expect((200..<300).contains(response.status.code), "\(holder): \(response.status) \(response.text)")
                    if row.route == "POST /v1/messages/batch" {
                        let result = try #require(try decode(BatchSendResponse.self, response).results.first)
                        if Self.isLimited(holder) {
                            #expect(result.httpStatus == 403 && result.error?.code == "insufficient_scope", "\(holder): \(response.text)")
                        } else {
                            #expect(result.status == .created, "\(holder): \(response.text)")
                        }
                    }
                    if row.route == "GET /v1/conversations" && Self.isLimited(holder) {
                        let list = try decode(ConversationsResponse.self, response)
                        #expect(list.conversations.map(\.id) == [elsewhere], "a limited token lists its conversations only")
                    }
                } else {
                    try expectError(response, .forbidden, code: "insufficient_scope")
                }

                // The non-member: on a conversation route, whatever its token, the very
                // bytes of carol's session asking for an id that does not exist.
                guard row.conversational else { continue }
                let (theirs, theirBody) = try await path(for: carol, conversation: conversation)
                let asNonMember = try await api.call(method, theirs, token: try await token(holder, owner: carol), raw: theirBody)
                let (unknown, unknownBody) = try await path(for: carol, conversation: 999_999)
                let forNothing = try await api.call(
                    method, unknown.replacingOccurrences(of: "/\(message)/", with: "/999999/"), token: carol.token, raw: unknownBody)
                #expect(asNonMember.status == .notFound, "\(holder): \(asNonMember.status) \(asNonMember.text)")
                #expect(asNonMember.status == forNothing.status && asNonMember.text == forNothing.text, "\(holder)")
            }
        }
    }

    /// Revoking a token and deleting a bot shut them out at once, cache or not.
    @Test func revokedTokensAndDeletedBotsAreRefusedAtOnce() async throws {
        try await withServer { api in
            let (alice, _, conversation) = try await api.pair()
            let made = try decode(CreatedToken.self, try await api.call(
                .post, "/v1/tokens", token: alice.token, json: CreateTokenRequest(name: "ci", scope: .all)))
            #expect(try await api.call(.get, "/v1/conversations/\(conversation)", token: made.token).status == .ok)
            #expect(try await api.call(.delete, "/v1/tokens/ci", token: alice.token).status == .noContent)
            try expectError(try await api.call(.get, "/v1/me", token: made.token), .unauthorized, code: "unauthorized")

            let bot = try decode(CreatedToken.self, try await api.call(
                .post, "/v1/bots", token: alice.token, json: CreateBotRequest(name: "deploy", scope: .send)))
            #expect(bot.user.bot == true)
            #expect(try await api.call(.get, "/v1/me", token: bot.token).status == .ok)
            #expect(try await api.call(.delete, "/v1/bots/deploy", token: alice.token).status == .noContent)
            try expectError(try await api.call(.get, "/v1/me", token: bot.token), .unauthorized, code: "unauthorized")
            // The name is free again.
            #expect(try await api.call(.post, "/v1/bots", token: alice.token, json: CreateBotRequest(name: "deploy", scope: .send)).status == .created)
        }
    }

    /// A session's expiry slides with use, written at most once an interval; an access
    /// token with an expiry doesn't slide.
    @Test func sessionsSlideAndTokensDoNot() async throws {
        let clock = TestClock()
        var limits = ServerLimits()
        limits.tokenTTLSeconds = 10 * 86_400
        try await withServer(clock: clock.read, limits: limits) { api in
            let alice = try await api.register("alice@example.com")
            let token = try decode(CreatedToken.self, try await api.call(
                .post, "/v1/tokens", token: alice.token, json: CreateTokenRequest(name: "t", scope: .read, expiresIn: 15 * 86_400))).token
            for _ in 0..<4 {
                clock.advance(seconds: 7 * 86_400)
                #expect(try await api.call(.get, "/v1/me", token: alice.token).status == .ok)
            }
            try expectError(try await api.call(.get, "/v1/me", token: token), .unauthorized, code: "token_expired")
            clock.advance(seconds: 10 * 86_400 + 1)
            try expectError(try await api.call(.get, "/v1/me", token: alice.token), .unauthorized, code: "token_expired")
        }
    }
}
