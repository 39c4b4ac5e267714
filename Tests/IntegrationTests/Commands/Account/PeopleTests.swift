import Foundation
import NexusCore
import Testing

/// Conversations and people, with the real binaries.
@Suite(.harness)
struct PeopleTests {
    func unread(_ user: User, _ conversation: String) throws -> Int? {
        try user.run(["convos", "--json"]).decode(ConvosJSON.self).conversations.first { String($0.id) == conversation }?.unreadCount
    }

    @Test func groupReceiptsGoFromReadByOneToReadByAll() throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try User("alice", server: server.url)
        let bob = try User("bob", server: server.url)
        let carol = try User("carol", server: server.url)
        try alice.register(name: "Alice")
        try bob.register(name: "Bob")
        try carol.register(name: "Carol")
        let created = try alice.run(["new", bob.email, carol.email, "--json"])
        #expect(created.code == 0, "\(created.err)")
        let group = try created.decode(OpenedJSON.self).conversation
        #expect(group.title == "Alice, Bob, Carol")
        let id = String(group.id)

        var localIds: [String] = []
        for text in ["one", "two", "three"] {
            localIds.append(try alice.run(["send", id, text, "--json"]).decode(SentJSON.self).localId)
        }
        #expect(try unread(bob, id) == 3)
        #expect(try unread(carol, id) == 3)
        #expect(try alice.run(["status", localIds[2]]).lines.first?.hasPrefix("Sent:") == true)

        // Bob's device gets them: delivered, not read.
        #expect(try bob.run(["tail", id]).code == 0)
        #expect(try unread(bob, id) == 3)
        #expect(try alice.run(["status", localIds[2]]).lines.first?.hasPrefix("Sent:") == true, "delivered to 1 of 2 is not delivered")

        #expect(try bob.run(["read", id]).code == 0)
        #expect(try unread(bob, id) == 0)
        let half = try alice.run(["status", localIds[2], "--json"])
        #expect(try half.decode(StatusJSON.self).statusText == "Read by 1/2")
        #expect(try alice.run(["status", localIds[2]]).lines.first == "Read by 1/2: three")

        #expect(try carol.run(["read", id]).code == 0)
        #expect(try unread(carol, id) == 0)
        #expect(try alice.run(["status", localIds[0]]).lines.first == "Read by 2/2: one")

        // Alice's own view of the thread shows it too.
        let history = try alice.run(["history", id])
        #expect(history.lines.filter { $0.hasSuffix("· Read by 2/2") }.count == 3, "\(history.out)")
        #expect(try unread(carol, id) == 0)
        #expect(try bob.run(["send", id, "back to you"]).code == 0)
        #expect(try unread(alice, id) == 1)
        #expect(try unread(carol, id) == 1)
    }

    @Test func aDirectMessageGoesSentDeliveredRead() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let localId = try alice.run(["send", bob.email, "hi", "--json"]).decode(SentJSON.self).localId
        func status() throws -> String? { try alice.run(["status", localId, "--json"]).decode(StatusJSON.self).statusText }
        #expect(try status() == "Sent")
        #expect(try bob.run(["history", alice.email]).code == 0)
        #expect(try status() == "Delivered")
        #expect(try bob.run(["read", alice.email]).code == 0)
        #expect(try status() == "Read")
    }

    @Test func tailReadMarksMessagesReadAsItPrintsThem() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let (tail, out, _) = try bob.spawn(["tail", "-f", "--read", "-n", "0"])
        defer { tail.terminate() }
        Thread.sleep(forTimeInterval: 0.3)
        let localId = try alice.run(["send", bob.email, "read me", "--json"]).decode(SentJSON.self).localId
        #expect(out.wait { $0.contains { $0.hasSuffix("Alice: read me") } })
        var status: String?
        for _ in 0..<50 where status != "Read" {
            status = try alice.run(["status", localId, "--json"]).decode(StatusJSON.self).statusText
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(status == "Read")
    }

    @Test func tailShowsReceiptsAndTyping() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "ping"]).code == 0)
        let (tail, out, err) = try alice.spawn(["tail", "-f", "--json", "-n", "0"])
        defer { tail.terminate() }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try bob.run(["typing", alice.email]).code == 0)
        #expect(out.wait { lines in decodeLines(lines.joined(separator: "\n"), as: TailLineJSON.self).contains { $0.type == "typing" } }, "\(out.text) \(err.text)")
        #expect(try bob.run(["read", alice.email]).code == 0)
        #expect(out.wait { lines in decodeLines(lines.joined(separator: "\n"), as: TailLineJSON.self).contains { $0.type == "receipt" && $0.kind == "read" } })
        let typing = try #require(decodeLines(out.text, as: TailLineJSON.self).first { $0.type == "typing" })
        #expect(typing.user == bob.email)

        // A second follower beside the first needs a position of its own.
        let (textTail, textOut, _) = try alice.spawn(["tail", "-f", "-n", "0", "--receipts", "--cursor", "text"])
        defer { textTail.terminate() }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try alice.run(["send", bob.email, "again"]).code == 0)
        #expect(try bob.run(["read", alice.email]).code == 0)
        #expect(textOut.wait { $0.contains { $0.contains("Bob read up to ") && $0.hasSuffix("/2") } }, "\(textOut.text)")
    }

    @Test func racingNewCreatesOneConversation() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let (first, out1, _) = try alice.spawn(["new", bob.email, "--json"])
        let (second, out2, _) = try bob.spawn(["new", alice.email, "--json"])
        first.waitUntilExit()
        second.waitUntilExit()
        #expect(first.terminationStatus == 0 && second.terminationStatus == 0)
        _ = out1.wait(timeout: 2) { !$0.isEmpty }
        _ = out2.wait(timeout: 2) { !$0.isEmpty }
        let ids = [out1.text, out2.text].compactMap { try? JSONDecoder().decode(ConversationResponse.self, from: Data($0.utf8)).conversation.id }
        #expect(ids.count == 2 && ids[0] == ids[1])
        #expect(try alice.run(["convos", "--json"]).decode(ConvosJSON.self).conversations.count == 1)
    }

    @Test func convosOrderSearchAndPresence() throws {
        let server = try TestServer()
        defer { server.stop() }
        let me = try User("me", server: server.url)
        try me.register(name: "Me")
        var others: [User] = []
        for name in ["alice", "bob", "carol"] {
            let u = try User(name, server: server.url)
            try u.register(name: name.capitalized)
            others.append(u)
            #expect(try me.run(["new", u.email]).code == 0)
        }
        // Activity order: carol, then alice (who says "deploy"), then bob last.
        #expect(try others[2].run(["send", me.email, "hello from carol"]).code == 0)
        Thread.sleep(forTimeInterval: 0.01)
        #expect(try others[0].run(["send", me.email, "the deploy is done"]).code == 0)
        Thread.sleep(forTimeInterval: 0.01)
        #expect(try me.run(["send", others[1].email, "lunch?"]).code == 0)

        func titles(_ args: [String]) throws -> [String] {
            try me.run(["convos", "--json"] + args).decode(ConvosJSON.self).conversations.map(\.title)
        }
        #expect(try titles([]) == ["Bob", "Alice", "Carol"])
        #expect(try titles(["--search", "DEPLOY"]) == ["Alice"])
        #expect(try titles(["--search", "car"]) == ["Carol"])
        #expect(try titles(["--unread"]) == ["Alice", "Carol"])
        #expect(try titles(["--limit", "1"]) == ["Bob"])

        let text = try me.run(["convos"])
        #expect(text.lines.first?.hasPrefix("ID") == true)
        #expect(text.lines[1].contains("You: lunch?"))
        #expect(text.lines[1].contains("Just now"))

        let users = try me.run(["users", "--json"]).decode([NexusCore.User].self)
        #expect(users.allSatisfy { $0.online == false && $0.lastSeenAt != nil }, "one-off commands are last seen, not online")
        #expect(try me.run(["users"]).out.contains("Last seen just now"))

        let empty = try User("nobody", server: server.url)
        try empty.register()
        let none = try empty.run(["convos"])
        #expect(none.err.contains("No conversations yet"))
        #expect(none.err.contains("nexusctl new <email>"))
    }

    // `users --search` folds case as Unicode does, on both backends, and compares in NFC:
    // "émile" finds Émile Zola as "ÉMILE" does, a decomposed é is the same é, "strasse"
    // finds a Straße. Accents are not folded: "emil" finds Emil only.
    @Test func userSearchFoldsUnicodeCaseInNFC() throws {
        let server = try TestServer()
        let me = try User("me", server: server.url)
        try me.register(name: "Me")
        for (n, name) in ["Émile Zola", "Jürgen Straße", "ΣΊΣΥΦΟΣ", "Emil Nolde"].enumerated() {
            try User("u\(n)", server: server.url).register(name: name)
        }
        func found(_ search: String) throws -> [String] {
            let r = try me.run(["users", "-s", search, "--json"])
            guard r.code == 0 else { throw HarnessError("users -s \(search) exited \(r.code): \(r.err)") }
            return try r.decode([NexusCore.User].self).map(\.displayName)
        }
        for search in ["émile", "ÉMILE", "e\u{301}mile", "E\u{301}MILE", "zola"] { #expect(try found(search) == ["Émile Zola"], "\(search)") }
        for search in ["strasse", "STRASSE", "jürgen", "JÜRGEN"] { #expect(try found(search) == ["Jürgen Straße"], "\(search)") }
        for search in ["σίσυφος", "σίσυφοσ", "ΣΊΣΥΦΟΣ"] { #expect(try found(search) == ["ΣΊΣΥΦΟΣ"], "\(search)") }
        #expect(try found("emil") == ["Emil Nolde"])
        #expect(try found("%") == [] && found("_") == [])
    }
}
