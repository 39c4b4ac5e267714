import Foundation
import Testing

/// `convos` marks my last message "✓✓" once every member who reads has read it. An incoming
/// hook's bot is a member that never reads, so it must not hold the mark back.
@Suite(.harness)
struct ReadByAllTests {
    struct List: Decodable {
        struct Summary: Decodable { var id: Int64; var lastMessageReadBy: Int?; var lastMessageReaders: Int? }
        var conversations: [Summary]
    }

    @Test func aHookBotInTheGroupDoesNotHoldBackReadByAll() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let carol = try User("carol", server: server.url)
        try carol.register(name: "Carol")
        let group = try AccessTokenTests.open(alice, [bob.email, carol.email])
        let hook = try alice.run(["hook", "create", group, "--name", "alerts"])
        #expect(hook.code == 0, "\(hook.err)")
        // The hook posts: its bot is a member of the group now.
        let url = hook.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try runTool("curl", ["-s", "-f", "-d", "disk 95% full", url]).code == 0)

        #expect(try alice.run(["send", group, "lunch at noon?"]).code == 0)
        #expect(try bob.run(["read", group]).code == 0)
        let half = try alice.run(["convos"])
        #expect(half.code == 0 && half.out.contains("You: lunch at noon?") && !half.out.contains("✓✓"),
                "one of two readers: no mark yet\n\(half.out)")

        #expect(try carol.run(["read", group]).code == 0)
        let all = try alice.run(["convos"])
        #expect(all.out.contains("You: lunch at noon? ✓✓"), "read by bob and carol, the hook's bot aside\n\(all.out)")
        let json = try alice.run(["convos", "--json"]).decode(List.self)
        let summary = try #require(json.conversations.first { String($0.id) == group })
        #expect(summary.lastMessageReadBy == 2 && summary.lastMessageReaders == 2, "\(summary)")

        // Offline, the cached list keeps the mark.
        server.stop()
        let cached = try alice.run(["convos"])
        #expect(cached.out.contains("You: lunch at noon? ✓✓"), "\(cached.out)\n\(cached.err)")
    }
}
