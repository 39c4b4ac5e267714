import Foundation
import Testing

/// A member removed from a group "keeps what their own cache holds". Online,
/// `history` gets 404 from the server and answers from the cache, saying so on stderr.
@Suite(.harness)
struct FormerMemberHistoryTests {
    struct Page: Decodable {
        struct Line: Decodable { var seq: Int64?; var text: String? }
        var messages: [Line]
        var notAMember: Bool?
        var offline: Bool?
    }

    @Test func aRemovedMembersHistoryIsWhatTheirCacheKept() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let carol = try User("carol", server: server.url)
        try carol.register(name: "Carol")
        let dave = try User("dave", server: server.url)
        try dave.register(name: "Dave")
        let group = try AccessTokenTests.open(alice, [bob.email, carol.email])
        for text in ["one", "two", "three"] { #expect(try alice.run(["send", group, text]).code == 0) }
        // Carol reads the group once: her cache holds seqs 1-3.
        #expect(try carol.run(["history", group]).code == 0)
        #expect(try alice.run(["remove", group, carol.email]).code == 0)
        #expect(try alice.run(["send", group, "after she left"]).code == 0)

        let text = try carol.run(["history", group])
        #expect(text.code == 0, "\(text.err)")
        #expect(text.out.contains("one") && text.out.contains("three") && !text.out.contains("after she left"), "\(text.out)")
        #expect(text.err.contains("you are no longer a member of this conversation; showing what your cache kept"), "\(text.err)")

        let json = try carol.run(["history", group, "--json"]).decode(Page.self)
        #expect(json.notAMember == true && json.offline == nil)
        #expect(json.messages.compactMap(\.seq) == [1, 2, 3], "\(json.messages)")
        // Paging back by seq: the cache holds the whole page, so it answers without asking.
        let older = try carol.run(["history", group, "--before", "3", "--json"]).decode(Page.self)
        #expect(older.messages.compactMap(\.seq) == [1, 2])

        // The server still refuses her: sending is 404 (exit 3), as for anyone outside.
        #expect(try carol.run(["send", group, "still here?"]).code == 3)
        // Someone who never was a member, with nothing cached, gets the 404 as before.
        let stranger = try dave.run(["history", group])
        #expect(stranger.code == 3 && stranger.err.contains("not found"), "\(stranger.code) \(stranger.err)")
    }
}
