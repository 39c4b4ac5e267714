import Foundation
import NexusCore
import Testing

/// Replies, edits, deletes and reactions: real nexusd, real
/// nexusctl processes, on the backend the suite runs on.
@Suite(.harness)
struct MessageChangeTests {
    /// alice and bob on a fresh server, with a direct conversation; returns its id.
    func setUp() throws -> (TestServer, User, User, Int64) {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        let id = try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id
        return (server, alice, bob, id)
    }

    /// One line of `tail --json` for a change.
    struct ChangeLineJSON: Decodable, Equatable {
        var type: String
        var kind: String
        var ref: String
        var user: String?
        var emoji: String?
    }

    /// The same person in a fresh NEXUS_HOME, logged in: what a new device sees.
    func freshDevice(_ user: User) throws -> User {
        let fresh = User(copying: user, home: try makeTempDir("fresh"))
        let login = try fresh.run(["login", user.email, "--password-stdin"], stdin: "password123\n")
        guard login.code == 0 else { throw HarnessError("login failed: \(login.err)") }
        return fresh
    }

    // Test 3: changes queued offline are flushed in order, each applied once; a `tail -f`
    // running throughout prints each event once; a fresh NEXUS_HOME sees the final state.
    @Test func offlineChangesFlushInOrderOnceAndTailSeesEachOnce() throws {
        let (server, alice, bob, c) = try setUp()
        for text in ["m1", "m2", "m3"] { #expect(try alice.run(["send", "\(c)", text]).code == 0) }
        let (tail, out, err) = try bob.spawn(["tail", "-f", "\(c)", "--json"])
        defer { tail.terminate() }
        #expect(out.wait { $0.count >= 3 }, "\(err.text)")

        server.stop()
        let offline: [[String]] = [
            ["edit", "\(c)/1", "m1 v2"], ["edit", "\(c)/1", "m1 v3"], ["react", "\(c)/2", "👍"], ["delete", "\(c)/3"],
        ]
        for args in offline {
            let r = try alice.run(args)
            #expect(r.code == 75, "\(args): \(r.err)")
            #expect(r.out.hasPrefix("queued \(args[0]) \(c)/"), "\(r.out)")
        }
        #expect(try alice.run(["send", "\(c)", "m4"]).code == 75)
        #expect(try bob.run(["react", "\(c)/1", "❤️"]).code == 75)
        let queued = try alice.run(["queue", "--json"]).out
        #expect(queued.contains("\"kind\":\"edit\"") && queued.contains("\"kind\":\"react\"") && queued.contains("\"kind\":\"delete\""), "\(queued)")
        // A second device of alice's holding the same outbox: its later flush is a resend
        // of every change after the acknowledgements were lost.
        let twin = User(copying: alice, home: try makeTempDir("twin"))
        let copy = try runTool("cp", ["-a", alice.home + "/.", twin.home])
        #expect(copy.code == 0, "\(copy.err)")

        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        let flush = try alice.run(["queue", "flush", "--now", "--json"])
        #expect(flush.code == 0, "\(flush.err)")
        #expect(try flush.decode(FlushJSON.self).sent.count == 5)
        #expect(try bob.run(["queue", "flush", "--now"]).code == 0)
        // The resend: every change answered as a duplicate, none applied again (the older
        // edit would otherwise win over the newer one).
        let again = try twin.run(["queue", "flush", "--now"])
        #expect(again.code == 0, "\(again.err)")

        let expected = [
            ChangeLineJSON(type: "change", kind: "edit", ref: "\(c)/1", user: alice.email, emoji: nil),
            ChangeLineJSON(type: "change", kind: "edit", ref: "\(c)/1", user: alice.email, emoji: nil),
            ChangeLineJSON(type: "change", kind: "react", ref: "\(c)/2", user: alice.email, emoji: "👍"),
            ChangeLineJSON(type: "change", kind: "delete", ref: "\(c)/3", user: alice.email, emoji: nil),
            ChangeLineJSON(type: "change", kind: "react", ref: "\(c)/1", user: bob.email, emoji: "❤️"),
        ]
        #expect(out.wait(timeout: 20) { decodeLines($0.joined(separator: "\n"), as: ChangeLineJSON.self).count >= 5 }, "\(out.text)\n\(err.text)")
        Thread.sleep(forTimeInterval: 1)  // a repeat would come now
        // Alice's changes keep her order; bob's reaction may come before them, as bob's
        // own `tail -f` delivers his queue on the side as soon as the server is back.
        let changes = decodeLines(out.text, as: ChangeLineJSON.self)
        #expect(changes.count == expected.count, "\(out.text)")
        for email in [alice.email, bob.email] {
            #expect(changes.filter { $0.user == email } == expected.filter { $0.user == email }, "\(out.text)")
        }
        let messages = decodeLines(out.text, as: TailLineJSON.self).filter { $0.type == "message" }
        #expect(messages.map(\.text) == ["m1", "m2", "m3", "m4"], "\(out.text)")

        for device in [try freshDevice(bob), try freshDevice(alice)] {
            let page = try device.run(["history", "\(c)", "--json"]).decode(PageJSON.self).messages
            #expect(page.map(\.seq) == [1, 2, 3, 4])
            #expect(page[0].text == "m1 v3")
            #expect(page[0].editedAt != nil)
            #expect(page[0].reactions?.map(\.emoji) == ["❤️"])
            #expect(page[1].reactions?.first?.userIds.count == 1)
            #expect(page[2].deletedAt != nil && page[2].text.isEmpty)
            #expect(page[3].text == "m4" && page[3].editedAt == nil)
            let text = try device.run(["history", "\(c)"]).out
            #expect(text.contains("m1 v3 (edited)  ❤️ 1"), "\(text)")
            #expect(text.contains("m2  👍 1"), "\(text)")
            #expect(text.contains(": message deleted"), "\(text)")
        }

        // The feed carries each change, not the message: bob's tail applied them to the
        // messages its cache holds, and printed each line with the message as it is after.
        let lines = out.lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        let changed = lines.filter { $0["type"] as? String == "change" }.compactMap { $0["message"] as? [String: Any] }
        #expect(changed.count == expected.count, "\(out.text)")
        #expect(changed.contains { ($0["reactions"] as? [[String: Any]])?.first?["emoji"] as? String == "👍" }, "\(out.text)")
        #expect(changed.contains { $0["deletedAt"] != nil && $0["text"] as? String == "" }, "\(out.text)")
        restarted.stop()
        let fromCache = try bob.run(["history", "\(c)", "--json"])
        let cachedPage = try fromCache.decode(PageJSON.self)
        let cached = cachedPage.messages
        #expect(cachedPage.offline == true, "\(fromCache.out)")
        #expect(cached.map(\.text) == ["m1 v3", "m2", "", "m4"], "\(fromCache.out)")
        #expect(cached[1].reactions?.map(\.emoji) == ["👍"] && cached[2].deletedAt != nil, "\(fromCache.out)")
    }

    // Test 4: only the sender edits or deletes; others get a clear error and exit 1, a
    // non-member the same 404 (exit 3) as for a conversation that does not exist.
    @Test func onlyTheSenderEditsOrDeletes() throws {
        let (server, alice, bob, c) = try setUp()
        #expect(try alice.run(["send", "\(c)", "original"]).code == 0)
        let edit = try bob.run(["edit", "\(c)/1", "hijacked"])
        #expect(edit.code == 1)
        #expect(edit.err.contains("error: Edit failed: Only the sender of message \(c)/1 can edit it."), "\(edit.err)")
        let delete = try bob.run(["delete", "\(c)/1", "--json"])
        #expect(delete.code == 1)
        #expect(delete.out.contains("\"status\":\"failed\""), "\(delete.out)")
        #expect(delete.err.contains("Only the sender of message \(c)/1 can delete it."), "\(delete.err)")
        #expect(try bob.run(["react", "\(c)/1", "ack"]).code == 0)

        let carol = try User("carol", server: server.url)
        try carol.register(name: "Carol")
        let foreign = try carol.run(["edit", "\(c)/1", "x", "--json"])
        let unknown = try carol.run(["edit", "\(c + 1000)/1", "x", "--json"])
        #expect(foreign.code == 3 && unknown.code == 3)
        #expect(foreign.err.split(separator: "\n").first == unknown.err.split(separator: "\n").first, "\(foreign.err) / \(unknown.err)")
        #expect(foreign.err.contains("Conversation not found."), "\(foreign.err)")
        let missing = try alice.run(["delete", "\(c)/99"])
        #expect(missing.code == 3)
        #expect(missing.err.contains("No message \(c)/99 in this conversation."), "\(missing.err)")
        let bad = try alice.run(["edit", "\(c)-1", "x"])
        #expect(bad.code == 2)
        #expect(bad.err.contains("CONVERSATION/SEQ"), "\(bad.err)")

        let page = try alice.run(["history", "\(c)", "--json"]).decode(PageJSON.self).messages
        #expect(page.map(\.text) == ["original"])
        #expect(page[0].editedAt == nil && page[0].deletedAt == nil)
        let bobId = try bob.run(["whoami", "--json"]).decode(AccountJSON.self).user.id
        #expect(page[0].reactions == [Reaction(emoji: "ack", userIds: [bobId])])
    }

    // Test 5: a deleted message's text is gone from the server's database and from every
    // cache that had it; a reply to it still shows where it pointed.
    @Test func deleteDropsTheTextEverywhere() throws {
        let (server, alice, bob, c) = try setUp()
        let secret = "secret-\(UUID().uuidString.prefix(8))"
        let sent = try alice.run(["send", "\(c)", secret, "--json"])
        #expect(try sent.decode(SentJSON.self).message?.seq == 1)
        #expect(sent.out.contains("\"ref\":\"\(c)/1\""), "\(sent.out)")
        let reply = try bob.run(["send", "\(c)", "--reply-to", "\(c)/1", "seen it"])
        #expect(reply.code == 0 && reply.out.hasSuffix(" \(c)/2\n"), "\(reply.out)")
        // Every cache takes the text in: history pages, the conversation list, tail.
        for user in [alice, bob] {
            #expect(try user.run(["history", "\(c)"]).out.contains(secret))
            #expect(try user.run(["convos"]).code == 0)
        }
        let quoted = try bob.run(["history", "\(c)"]).out
        #expect(quoted.contains("You: seen it  · Delivered\n              ↪ reply to \(c)/1 Alice: \(secret)"), "\(quoted)")
        #expect(try files(under: bob.home, contain: secret))
        let (tail, out, err) = try bob.spawn(["tail", "-f", "\(c)"])
        defer { tail.terminate() }
        #expect(out.wait { $0.count >= 3 }, "\(err.text)")

        #expect(try alice.run(["edit", "\(c)/1", "\(secret) v2"]).code == 0)
        #expect(try alice.run(["delete", "\(c)/1"]).out == "deleted \(c)/1\n")
        #expect(out.wait { $0.contains { $0.hasSuffix("Alice deleted \(c)/1") } }, "\(out.text)")
        #expect(try bob.run(["history", "\(c)"]).code == 0)

        for user in [alice, bob] {
            #expect(try !files(under: user.home, contain: secret), "\(user.email)'s files still hold the text")
            let text = try user.run(["history", "\(c)"]).out
            #expect(text.contains("\(user.email == alice.email ? "You" : "Alice"): message deleted"), "\(text)")
            #expect(text.contains("↪ reply to \(c)/1 message deleted"), "\(text)")
            let page = try user.run(["history", "\(c)", "--json"]).decode(PageJSON.self).messages
            #expect(page[1].replyTo == 1)
        }
        #expect(try databaseRows(containing: secret, server.databasePath) == 0)
        #expect(try databaseRows(containing: "seen it", server.databasePath) == 1)  // the query can find text
        // The tombstone keeps its seq: pages stay gapless.
        #expect(try bob.run(["history", "\(c)", "--json"]).decode(PageJSON.self).messages.map(\.seq) == [1, 2])
    }

    // The conversation list's preview follows an edit and a delete of the last message,
    // from the server and, offline, from the cache.
    @Test func theListPreviewFollowsTheLastMessage() throws {
        let (server, alice, bob, c) = try setUp()
        #expect(try alice.run(["send", "\(c)", "deploy 40%"]).code == 0)
        #expect(try bob.run(["convos"]).out.contains("deploy 40%"))
        let (tail, out, _) = try bob.spawn(["tail", "-f", "\(c)"])
        defer { tail.terminate() }
        #expect(out.wait { $0.count >= 1 })
        #expect(try alice.run(["edit", "\(c)/1", "deploy 100%"]).code == 0)
        #expect(out.wait { $0.contains { $0.hasSuffix("Alice edited \(c)/1: deploy 100%") } }, "\(out.text)")
        let list = try bob.run(["convos", "--json"]).decode(ConvosJSON.self)
        #expect(list.conversations.first?.lastMessage?.text == "deploy 100%")
        #expect(list.conversations.first?.lastMessage?.editedAt != nil)
        #expect(try alice.run(["delete", "\(c)/1"]).code == 0)
        #expect(out.wait { $0.contains { $0.hasSuffix("Alice deleted \(c)/1") } }, "\(out.text)")
        server.stop()
        // Offline: the cached list, which the tail -f kept up to date.
        let offline = try bob.run(["convos"])
        #expect(offline.out.contains("message deleted") && !offline.out.contains("deploy"), "\(offline.out)\n\(offline.err)")
    }

    /// Whether any file under `directory` holds `text`.
    func files(under directory: String, contain text: String) throws -> Bool {
        let needle = Data(text.utf8)
        let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        return files.contains { FileManager.default.contents(atPath: directory + "/" + $0)?.range(of: needle) != nil }
    }

    /// Rows of the server's messages and message_changes whose text holds `text`, by a query
    /// on the database itself (sqlite3 or psql).
    func databaseRows(containing text: String, _ database: String) throws -> Int {
        let found = Backend.postgres == nil ? "instr(text, '\(text)') > 0" : "position(convert_to('\(text)', 'UTF8') in text) > 0"
        return try Backend.count("SELECT COUNT(*) FROM messages WHERE \(found)", on: database)
    }
}
