import Foundation
import HTTPTypes
import HummingbirdTesting
import NexusWire
import Testing

@testable import NexusServer

/// POST /v1/messages/changes by every kind of caller (the authorization matrix for an
/// endpoint that names its conversations in the body): the sender edits and deletes, any
/// member reacts, another member gets 403 `not_sender`, a non-member exactly the 404 of an
/// unknown conversation, and no token 401. A change resent by localId is applied once.
struct ChangesAuthorizationTests {
    func change(_ api: API, _ token: String?, _ items: [ChangeItem]) async throws -> (HTTPTypes.HTTPResponse.Status, [BatchResult]) {
        let response = try await api.call(.post, "/v1/messages/changes", token: token, json: ChangesRequest(changes: items))
        guard response.status == .ok else { return (response.status, []) }
        return (response.status, try decode(ChangesResponse.self, response).results)
    }

    @Test func whoMayChangeWhat() async throws {
        try await withServer { api in
            let (alice, bob, c) = try await api.pair()
            let carol = try await api.register("carol@example.com")
            try await api.send(alice.token, to: c, localId: "m1", text: "original")

            let byBob = try await change(api, bob.token, [
                ChangeItem(localId: "b1", kind: .edit, conversationId: c, seq: 1, text: "hijacked"),
                ChangeItem(localId: "b2", kind: .delete, conversationId: c, seq: 1),
                ChangeItem(localId: "b3", kind: .react, conversationId: c, seq: 1, emoji: "👍"),
            ]).1
            #expect(byBob.map(\.status) == [.rejected, .rejected, .created])
            #expect(byBob[0].httpStatus == 403 && byBob[0].error?.code == "not_sender")
            #expect(byBob[1].httpStatus == 403 && byBob[1].error?.code == "not_sender")
            #expect(byBob[2].message?.reactions == [Reaction(emoji: "👍", userIds: [bob.user.id])])

            // A non-member learns nothing: the very answer of a conversation that does not exist.
            let foreign = try await api.call(.post, "/v1/messages/changes", token: carol.token, json: ChangesRequest(changes: [
                ChangeItem(localId: "c1", kind: .edit, conversationId: c, seq: 1, text: "x")]))
            let unknown = try await api.call(.post, "/v1/messages/changes", token: carol.token, json: ChangesRequest(changes: [
                ChangeItem(localId: "c1", kind: .edit, conversationId: 999_999, seq: 1, text: "x")]))
            // (Compared decoded: the answer's key order is the encoder's, not part of the contract.)
            let (f, u) = (try decode(ChangesResponse.self, foreign).results[0], try decode(ChangesResponse.self, unknown).results[0])
            #expect(foreign.status == .ok && unknown.status == .ok)
            #expect(f.httpStatus == 404 && f.httpStatus == u.httpStatus && f.status == u.status && f.message == nil && u.message == nil)
            #expect(f.error == u.error && f.error?.code == "not_found", "\(foreign.text) / \(unknown.text)")
            #expect(try await change(api, nil, []).0 == .unauthorized)

            // The sender edits twice, then the first edit is resent: it is a duplicate and
            // the newer text stays.
            let edits = [
                ChangeItem(localId: "a1", kind: .edit, conversationId: c, seq: 1, text: "v2"),
                ChangeItem(localId: "a2", kind: .edit, conversationId: c, seq: 1, text: "v3"),
            ]
            #expect(try await change(api, alice.token, edits).1.map(\.status) == [.created, .created])
            let resent = try await change(api, alice.token, [edits[0]]).1
            #expect(resent.first?.status == .duplicate)
            #expect(resent.first?.message?.text == "v3")
            let missing = try await change(api, alice.token, [ChangeItem(localId: "a3", kind: .delete, conversationId: c, seq: 7)]).1
            #expect(missing.first?.httpStatus == 404 && missing.first?.error?.code == "message_not_found")

            // The feed carries each applied change once, as a message event with `change` and
            // not the message: the seq it names, and an edit's text.
            let events = try await api.sync(bob.token, query: "after=0").events.filter { $0.change != nil }
            #expect(events.map { $0.change!.kind } == [.react, .edit, .edit])
            #expect(events.allSatisfy { $0.message == nil && $0.change?.seq == 1 })
            #expect(events.map { $0.change?.text } == [nil, "v3", "v3"])

            let deleted = try await change(api, alice.token, [ChangeItem(localId: "a4", kind: .delete, conversationId: c, seq: 1)]).1
            #expect(deleted.first?.message?.deletedAt != nil && deleted.first?.message?.text == "")
            let late = try await change(api, bob.token, [ChangeItem(localId: "b4", kind: .react, conversationId: c, seq: 1, emoji: "❤️")]).1
            #expect(late.first?.httpStatus == 409 && late.first?.error?.code == "message_deleted")
            let page = try decode(MessagesPage.self, try await api.call(.get, "/v1/conversations/\(c)/messages", token: bob.token))
            #expect(page.messages.map(\.seq) == [1])
            #expect(page.messages[0].reactions == nil)
        }
    }
}
