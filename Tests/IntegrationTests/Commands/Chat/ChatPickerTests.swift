import Foundation
import Testing

/// `chat`'s new-conversation screen in a real terminal (tmux) against a real nexusd: the
/// server's users searched as typed, one person for the direct conversation (the one there
/// is, never a second), several for a named group; and offline, that it needs the server.
@Suite(.harness)
struct ChatPickerTests {
    private func conversations(_ user: User) throws -> [[String: Any]] {
        let list = try #require(try user.run(["convos", "--json"]).json() as? [String: Any])
        return list["conversations"] as? [[String: Any]] ?? []
    }

    @Test func onePersonOpensTheDirectConversationAndSeveralANamedGroup() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, carol) = try server.trio()
        #expect(try bob.run(["send", alice.email, "hi"]).code == 0)
        let tty = try TerminalSession(alice, ["chat"])
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.contains("Bob") && $0.contains("hi") } }, "\(tty.screen)")
        tty.send("c")
        #expect(tty.wait { s in
            s.first == "New conversation" && s.contains { $0.contains("[ ] Bob  bob@") } && s.contains { $0.contains("[ ] Carol  carol@") }
        }, "\(tty.screen)")
        // Typing searches, as `users --search` does.
        tty.send("car", literal: true)
        #expect(tty.wait { s in s.contains { $0.hasPrefix("> [ ] Carol") } && !s.contains { $0.contains("bob@") } }, "\(tty.screen)")
        tty.send("BSpace", "BSpace", "BSpace")
        tty.send("bo", literal: true)
        #expect(tty.wait { s in s.contains { $0.hasPrefix("> [ ] Bob") } && !s.contains { $0.contains("carol@") } }, "\(tty.screen)")
        // One person: the conversation there is with him, not a second one.
        tty.send("Enter")
        #expect(tty.wait { s in s.first?.hasPrefix("Bob · ") == true && s.contains { $0.hasSuffix(" hi") } && s.last == ">" }, "\(tty.screen)")
        #expect(try conversations(alice).filter { $0["kind"] as? String == "direct" }.count == 1)

        // Several: marked with Space, then a name.
        tty.send("Escape")
        #expect(tty.wait { $0.first == "Conversations" }, "\(tty.screen)")
        tty.send("c")
        tty.send("bo", literal: true)
        #expect(tty.wait { s in s.contains { $0.hasPrefix("> [ ] Bob") } && !s.contains { $0.contains("carol@") } }, "\(tty.screen)")
        tty.send("Space")
        #expect(tty.wait { s in s.contains { $0.hasPrefix("> [x] Bob") } }, "\(tty.screen)")
        tty.send("BSpace", "BSpace")
        tty.send("car", literal: true)
        #expect(tty.wait { s in s.contains { $0.hasPrefix("> [ ] Carol") } && !s.contains { $0.contains("bob@") } }, "\(tty.screen)")
        tty.send("Space")
        #expect(tty.wait { $0.first == "New conversation · with Bob, Carol" }, "\(tty.screen)")
        tty.send("Enter")
        #expect(tty.wait { s in s.first == "New group · with Bob, Carol" && s.count > 1 && s[1].hasPrefix("Group name") }, "\(tty.screen)")
        tty.send("Ramen", literal: true)
        tty.send("Enter")
        #expect(tty.wait { $0.first == "Ramen · 3 members" }, "\(tty.screen)")
        let groups = try conversations(alice).filter { $0["kind"] as? String == "group" }
        #expect(groups.count == 1 && groups.first?["name"] as? String == "Ramen", "\(groups)")
        #expect(try carol.run(["convos"]).out.contains("Ramen"))
    }

    @Test func offlineItSaysANewConversationNeedsTheServer() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "hi"]).code == 0)
        let tty = try TerminalSession(alice, ["chat"])
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.contains("Bob") && $0.contains("hi") } }, "\(tty.screen)")
        server.stop()
        tty.send("c")
        #expect(tty.wait { s in
            s.first == "New conversation" && s.contains { $0 == "A new conversation needs the server: can't reach http://127.0.0.1:\(server.port)." }
        }, "\(tty.screen)")
        tty.send("Escape")
        #expect(tty.wait { $0.first == "Conversations" }, "\(tty.screen)")
    }
}
