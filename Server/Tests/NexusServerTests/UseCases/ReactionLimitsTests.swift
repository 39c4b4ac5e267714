import Foundation
import HTTPTypes
import HummingbirdTesting
import NexusWire
import Testing

@testable import NexusServer

/// Reactions on one message, bounded (ServerLimits.maxReactionsPerMessage and
/// maxReactionsPerMemberPerMessage): every page of history carries all of a message's
/// reactions, so one member's would otherwise swell every member's reads. Checked in the
/// rules both backends share, inside each backend's transaction. A change event carries
/// only the change.
struct ReactionLimitsTests {
    func react(_ api: API, _ token: String, _ c: Int64, _ emoji: [String], prefix: String) async throws -> [BatchResult] {
        let items = emoji.enumerated().map { i, e in ChangeItem(localId: "\(prefix)\(i)", kind: .react, conversationId: c, seq: 1, emoji: e) }
        let response = try await api.call(.post, "/v1/messages/changes", token: token, json: ChangesRequest(changes: items))
        #expect(response.status == .ok, "\(response.text)")
        return try decode(ChangesResponse.self, response).results
    }

    @Test func aMemberAndAMessageTakeOnlySoManyReactions() async throws {
        var limits = ServerLimits()
        limits.maxReactionsPerMessage = 4
        limits.maxReactionsPerMemberPerMessage = 3
        try await withServer(limits: limits) { api in
            let (alice, bob, c) = try await api.pair()
            try await api.send(alice.token, to: c, localId: "m1", text: "hello")

            // Bob's fourth emoji is refused; his third again changes nothing and is no error.
            let bobs = try await react(api, bob.token, c, ["a", "b", "c", "d", "c"], prefix: "b")
            #expect(bobs.map(\.status) == [.created, .created, .created, .rejected, .created])
            #expect(bobs[3].httpStatus == 409 && bobs[3].error?.code == "too_many_reactions", "\(bobs[3])")
            #expect(bobs[3].error?.message.contains("remove one first") == true)

            // Alice joins Bob's emoji freely, adds one new (the fourth distinct), and no more.
            let alices = try await react(api, alice.token, c, ["a", "x", "y"], prefix: "a")
            #expect(alices.map(\.status) == [.created, .created, .rejected])
            #expect(alices[2].httpStatus == 409 && alices[2].error?.code == "too_many_reactions")
            #expect(alices[2].error?.message.contains("react with one it has already") == true)
            #expect(alices[1].message?.reactions?.map(\.emoji) == ["a", "b", "c", "x"])

            // Taking one off makes room again.
            let unreact = ChangeItem(localId: "u1", kind: .unreact, conversationId: c, seq: 1, emoji: "x")
            _ = try await api.call(.post, "/v1/messages/changes", token: alice.token, json: ChangesRequest(changes: [unreact]))
            #expect(try await react(api, alice.token, c, ["y"], prefix: "again").map(\.status) == [.created])
        }
    }

    /// 300 reactions to a message of 32 KiB: carrying the message, each change event would
    /// hold its text and every reaction before it (some 10 MB in all); carrying the change,
    /// the page grows by a short line per reaction.
    @Test func aChangeEventCarriesTheChangeNotTheMessage() async throws {
        var limits = ServerLimits()
        limits.maxReactionsPerMessage = 300
        limits.maxReactionsPerMemberPerMessage = 300
        try await withServer(limits: limits) { api in
            let (alice, bob, c) = try await api.pair()
            try await api.send(alice.token, to: c, localId: "m1", text: String(repeating: "x", count: 32 * 1024))
            let head = try await api.sync(alice.token, query: "after=0").cursor
            for round in 0..<3 {
                let emoji = (0..<100).map { "r\(round)-\($0)" }
                #expect(try await react(api, bob.token, c, emoji, prefix: "b\(round)-").allSatisfy { $0.status == .created })
            }
            let page = try await api.call(.get, "/v1/sync?after=\(head)", token: alice.token)
            // Reacting also answers: bob's read receipt comes along.
            let events = try decode(SyncResponse.self, page).events.filter { $0.change != nil }
            #expect(events.count == 300 && events.allSatisfy { $0.message == nil && $0.change?.seq == 1 })
            #expect(page.text.utf8.count < 300 * 200, "\(page.text.utf8.count) bytes for 300 reactions")
            // The message itself, fetched, has them all.
            #expect(try await api.messages(alice.token, in: c).messages.first?.reactions?.count == 300)
        }
    }

    @Test func theDefaultsAre50EmojiAnd20AMember() {
        #expect(ServerLimits().maxReactionsPerMessage == 50)
        #expect(ServerLimits().maxReactionsPerMemberPerMessage == 20)
    }
}
