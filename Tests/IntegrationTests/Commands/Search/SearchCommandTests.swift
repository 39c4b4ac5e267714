import Foundation
import NexusCore
import Testing

/// `nexusctl search` against the real nexusd, on SQLite or PostgreSQL.
@Suite(.harness)
struct SearchCommandTests {
    /// A hit as `search --json` prints it.
    struct Hit: Decodable {
        var ref: String
        var id: Int64
        var conversationId: Int64
        var senderId: Int64
        var text: String
        var score: Double
        var snippet: String
        var highlights: [[Int]]
        var offline: Bool?
    }

    static let texts = [
        "Lunch at the Café tomorrow?", "Sure, the CAFE near the deploy pipeline", "東京タワーに行った 🎉 party",
        "deployment failed: error 42 in stage two", "ERROR: 42 is not the answer",
    ]

    /// alice and bob, and the texts above sent by alice into their conversation, in order.
    func setUp() throws -> (TestServer, User, User, String) {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        let id = String(try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id)
        for text in Self.texts { try #require(try alice.run(["send", id, text]).code == 0) }
        return (server, alice, bob, id)
    }

    func hits(_ user: User, _ args: [String]) throws -> [Hit] {
        let r = try user.run(["search", "--json"] + args)
        guard r.code == 0 else { throw HarnessError("search \(args) exited \(r.code): \(r.err)") }
        return r.decodeLines(Hit.self)
    }

    func seqs(_ user: User, _ args: [String]) throws -> [Int] {
        try hits(user, args).map { Int($0.ref.split(separator: "/").last!)! }
    }

    @Test func theQuerySyntaxCaseAccentsAndEmoji() throws {
        let (server, alice, bob, id) = try setUp()
        defer { server.stop() }
        #expect(try seqs(bob, ["cafe"]) == [2, 1])
        #expect(try seqs(bob, ["café"]) == [2, 1])
        #expect(try seqs(bob, ["--", "cafe", "-lunch"]) == [2])
        #expect(try seqs(bob, ["deploy*"]) == [4, 2])
        #expect(try seqs(bob, [#""error 42""#]) == [5, 4])
        #expect(try seqs(bob, [#""42 error""#]) == [])
        #expect(try seqs(bob, ["🎉"]) == [3])
        #expect(try seqs(bob, ["タワー"]) == [3])
        let hit = try #require(try hits(bob, ["café"]).last)
        #expect(hit.ref == "\(id)/1")
        let snippet = Array(hit.snippet.unicodeScalars)
        let marked = try #require(hit.highlights.first)
        #expect(String(String.UnicodeScalarView(snippet[marked[0]..<marked[1]])) == "Café")
        #expect(hit.score > 0)

        let text = try bob.run(["search", "cafe"])
        #expect(text.lines.first?.hasPrefix("\(id)/2  ") == true, "\(text.out)")
        #expect(text.lines.first?.hasSuffix("Sure, the [CAFE] near the deploy pipeline") == true, "\(text.out)")
        #expect(text.lines.last == "No more results")

        // --in and --from: carol's conversation with bob has a cafe too.
        let carol = try User("carol", server: server.url)
        try carol.register()
        try #require(try carol.run(["send", bob.email, "cafe at noon"]).code == 0)
        #expect(try hits(bob, ["cafe"]).count == 3)
        #expect(Set(try hits(bob, ["cafe", "--in", id]).map(\.conversationId)) == [Int64(id)!])
        #expect(try hits(bob, ["cafe", "--in", alice.email]).count == 2)
        #expect(try hits(bob, ["cafe", "--from", "CAROL@example.com"]).map(\.text) == ["cafe at noon"])
        #expect(try bob.run(["search", "\"open"]).code == 2)
    }

    @Test func pagesReturnEachHitOnceAndTheLastLineIsTheNextCommand() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let lines = (1...23).map { "status report \($0)" }.joined(separator: "\n") + "\n"
        try #require(try alice.run(["send", bob.email, "--each-line"], stdin: lines).code == 0)
        var seen: [String] = []
        var args = ["search", "report", "--limit", "5"]
        for _ in 0..<10 {
            let r = try bob.run(args)
            try #require(r.code == 0, "\(r.err)")
            let footer = try #require(r.lines.last)
            seen += r.lines.dropLast().map { String($0.split(separator: " ").first!) }
            guard footer.hasPrefix("More: nexusctl ") else {
                #expect(footer == "No more results")
                break
            }
            args = footer.split(separator: " ").dropFirst(2).map(String.init)
        }
        #expect(seen.count == 23)
        #expect(Set(seen).count == 23)
        let ranked = try hits(bob, ["report", "--rank", "--limit", "50"])
        #expect(ranked.count == 23)
    }

    /// A non-member's search answers exactly as a search that matches nothing.
    @Test func aNonMemberFindsNothingAndCannotTellWhy() throws {
        let (server, _, bob, id) = try setUp()
        defer { server.stop() }
        let carol = try User("carol", server: server.url)
        try carol.register()
        for json in [false, true] {
            let flags = json ? ["--json"] : []
            let found = try carol.run(["search", "cafe", "--in", id] + flags)
            let nothing = try carol.run(["search", "zzzqqq", "--in", id] + flags)
            #expect(found.code == 0 && nothing.code == 0)
            #expect(found.out == nothing.out)
            #expect(found.err == nothing.err)
            #expect(try carol.run(["search", "cafe"] + flags).out == nothing.out)
        }
        #expect(try seqs(bob, ["cafe"]).count == 2)
    }

    @Test func offlineSearchScansTheCacheAndSaysSo() throws {
        let (server, _, bob, id) = try setUp()
        try #require(try bob.run(["history", id]).code == 0)  // fills bob's cache
        let online = try bob.run(["search", "cafe", "--offline"])
        #expect(online.err.contains("offline"), "\(online.err)")
        #expect(online.lines.count == 3, "\(online.out)")
        server.stop()
        let offline = try bob.run(["search", "--json", "--", "café", "-lunch"])
        #expect(offline.code == 0)
        #expect(offline.err.contains("offline"), "\(offline.err)")
        let found = offline.decodeLines(Hit.self)
        #expect(found.map(\.ref) == ["\(id)/2"])
        #expect(found.first?.offline == true)
        #expect(try seqs(bob, ["🎉"]) == [3])
        #expect(try seqs(bob, [#""error 42""#]) == [5, 4])
    }
}
