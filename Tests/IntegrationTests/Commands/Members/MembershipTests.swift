import Foundation
import NexusCore
import Testing

/// Group membership after creation: add, remove, leave and rename with
/// the real nexusd and nexusctl, on the backend the suite runs on.
@Suite(.harness)
struct MembershipTests {
    /// A line of `tail --json` or `history --json`, with what a membership event adds.
    struct Line: Decodable {
        var type: String?
        var conversationId: Int64?
        var seq: Int64?
        var text: String?
        var sender: String?
        var status: String?
        var statusText: String?
        var membership: MembershipEvent?
    }

    struct History: Decodable {
        var messages: [Line]
        /// The page is the cache's, the server having said "not a member".
        var notAMember: Bool?
    }

    struct StatusJSON: Decodable {
        var statusText: String
    }

    struct SendResultJSON: Decodable {
        var localId: String
    }

    struct ChangeJSON: Decodable {
        var kind: String
        var status: String
        var message: Line?
        var note: String?
    }

    /// alice, bob, carol and dave on `server`, and a group of alice, bob and carol.
    func group(on server: TestServer, serverFor: (String) -> String = { _ in "" }) throws -> (User, User, User, User, Int64) {
        var users: [User] = []
        for name in ["alice", "bob", "carol", "dave"] {
            var user = try User(name, server: server.url)
            let other = serverFor(name)
            if !other.isEmpty { user.server = other }
            try user.register(name: name.prefix(1).uppercased() + name.dropFirst())
            users.append(user)
        }
        let (alice, bob, carol, dave) = (users[0], users[1], users[2], users[3])
        let created = try alice.run(["new", bob.email, carol.email, "--name", "Team", "--json"])
        #expect(created.code == 0, "\(created.err)")
        return (alice, bob, carol, dave, try created.decode(ConversationResponse.self).conversation.id)
    }

    func events(_ lines: [Line]) -> [MembershipEvent.Kind] { lines.compactMap(\.membership?.kind) }

    @Test func eachChangeAppearsOnceInEveryMembersTailAndHistory() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, carol, dave, c) = try group(on: server)
        #expect(try alice.run(["send", "\(c)", "hello"]).code == 0)
        let (aliceTail, aliceOut, aliceErr) = try alice.spawn(["tail", "-f", "--json"])
        let (bobTail, bobOut, _) = try bob.spawn(["tail", "-f", "\(c)", "--json"])
        // Bob's second terminal: a home of its own, as two tails of one profile share a cursor.
        let bobElsewhere = User(copying: bob, home: try makeTempDir("bob-text"))
        #expect(try bobElsewhere.run(["login", bob.email, "--password-stdin"], stdin: "password123\n").code == 0)
        let (bobText, bobTextOut, _) = try bobElsewhere.spawn(["tail", "-f", "\(c)"])
        let (carolTail, carolOut, carolErr) = try carol.spawn(["tail", "-f", "\(c)", "--json"])
        defer { for p in [aliceTail, bobTail, bobText, carolTail] where p.isRunning { p.terminate() } }
        #expect(aliceOut.wait { $0.contains { $0.contains("hello") } }, "\(aliceErr.text)")
        #expect(bobOut.wait { $0.contains { $0.contains("hello") } })
        #expect(carolOut.wait { $0.contains { $0.contains("hello") } })
        #expect(bobTextOut.wait { $0.contains { $0.contains("hello") } })

        let add = try alice.run(["add", "\(c)", dave.email, "--json"])
        #expect(add.code == 0, "\(add.err)")
        #expect(try add.decode(ChangeJSON.self).message?.membership == MembershipEvent(kind: .added, userIds: [try dave.api().me().id]))
        let rename = try bob.run(["rename", "\(c)", "Release", "crew"])
        #expect(rename.code == 0 && rename.out == "Bob renamed the group to \"Release crew\"\n", "\(rename.out)\(rename.err)")
        #expect(carolOut.wait { events(decodeLines($0.joined(separator: "\n"), as: Line.self)).count >= 2 }, "\(carolOut.text)")
        let remove = try alice.run(["remove", "\(c)", carol.email])
        #expect(remove.code == 0 && remove.out == "Alice removed Carol\n", "\(remove.out)\(remove.err)")

        // Removed: at once the group is not found for carol, as for anyone outside it; her
        // `history` shows what her cache kept (her tail -f saw "hello"), and says why.
        let carolHistory = try carol.run(["history", "\(c)", "--json"])
        #expect(carolHistory.code == 0, "\(carolHistory.out)\(carolHistory.err)")
        #expect(try carolHistory.decode(History.self).notAMember == true, "\(carolHistory.out)")
        #expect(carolHistory.err.contains("no longer a member"), "\(carolHistory.err)")
        let carolSend = try carol.run(["send", "\(c)", "still here?"])
        #expect(carolSend.code == 3, "\(carolSend.err)")
        // Her `tail -f` of the group, woken by the change, ends with the same answer: well
        // within its 25 s poll, so a missed wake-up fails. A tail that met a transient error
        // (an overloaded machine: the database past its deadline) probes with backoff, up to
        // 5 s apart; it says so on stderr, and then gets 30 s more.
        if !ends(carolTail, within: 10) && carolErr.text.contains("retrying until the server is back") {
            _ = ends(carolTail, within: 30)
        }
        #expect(!carolTail.isRunning && carolTail.terminationStatus == 3, "carol's tail -f still runs after her removal: \(carolErr.text)")

        let leave = try dave.run(["leave", "\(c)"])
        #expect(leave.code == 0 && leave.out == "Dave left\n", "\(leave.out)\(leave.err)")
        // Dave's cache holds his own leaving (the answer to `leave`): that is what he keeps.
        let daveHistory = try dave.run(["history", "\(c)", "--json"])
        #expect(daveHistory.code == 0 && (try? daveHistory.decode(History.self).notAMember) == true, "\(daveHistory.out)\(daveHistory.err)")
        // Nothing to change is no error, and no event.
        let again = try alice.run(["add", "\(c)", bob.email, "--json"])
        let againStatus = try again.decode(ChangeJSON.self).status
        #expect(again.code == 0 && againStatus == "unchanged", "\(again.out)\(again.err)")

        let all: [MembershipEvent.Kind] = [.added, .renamed, .removed, .left]
        #expect(aliceOut.wait { events(decodeLines($0.joined(separator: "\n"), as: Line.self)).count >= 4 }, "\(aliceOut.text)")
        #expect(bobOut.wait { events(decodeLines($0.joined(separator: "\n"), as: Line.self)).count >= 4 }, "\(bobOut.text)")
        #expect(bobTextOut.wait { $0.contains { $0.contains("Dave left") } }, "\(bobTextOut.text)")
        Thread.sleep(forTimeInterval: 1.5)  // a repeat would come now
        #expect(events(decodeLines(aliceOut.text, as: Line.self)) == all, "\(aliceOut.text)")
        #expect(events(decodeLines(bobOut.text, as: Line.self)) == all, "\(bobOut.text)")
        // Carol saw what happened while she was in, and not her removal's aftermath.
        #expect(events(decodeLines(carolOut.text, as: Line.self)) == [.added, .renamed], "\(carolOut.text)")
        for sentence in ["· Alice added Dave", "· You renamed the group to \"Release crew\"", "· Alice removed Carol", "· Dave left"] {
            #expect(bobTextOut.lines.filter { $0.hasSuffix(sentence) }.count == 1, "\(sentence): \(bobTextOut.text)")
        }

        // History: the events in seq order, gapless, once each.
        for user in [alice, bob] {
            let page = try user.run(["history", "\(c)", "--json"]).decode(History.self).messages
            #expect(page.compactMap(\.seq) == [1, 2, 3, 4, 5], "\(user.email)")
            #expect(events(page) == all, "\(user.email)")
        }
        let text = try alice.run(["history", "\(c)"]).out
        #expect(text.contains("· You added Dave") && text.contains("· Bob renamed the group to \"Release crew\""), "\(text)")
        // The new name reached the caches; dave's list no longer has the group.
        #expect(try bob.run(["convos"]).out.contains("Release crew"))
        #expect(!(try dave.run(["convos"]).out.contains("Release crew")))

        // Carol keeps what her cache holds: offline, her history still shows it.
        server.stop()
        let offline = try carol.run(["history", "\(c)"])
        #expect(offline.out.contains("hello"), "\(offline.out)\(offline.err)")
    }

    @Test func readByCountsTheCurrentMembers() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, carol, dave, c) = try group(on: server)
        // An incoming hook's bot is a member that posts and never reads: it never counts.
        let hook = try alice.run(["hook", "create", "\(c)", "--name", "alerts"])
        #expect(hook.code == 0, "\(hook.err)")
        let sent = try alice.run(["send", "\(c)", "m1", "--json"])
        #expect(sent.code == 0)
        #expect(try bob.run(["read", "\(c)"]).code == 0)
        let status = try alice.run(["status", try sent.decode(SendResultJSON.self).localId, "--json"])
        #expect(try status.decode(StatusJSON.self).statusText == "Read by 1/2", "\(status.out)")
        func readBy() throws -> String? {
            try alice.run(["history", "\(c)", "--json"]).decode(History.self).messages.first { $0.text == "m1" }?.statusText
        }
        #expect(try readBy() == "Read by 1/2")
        #expect(try alice.run(["remove", "\(c)", carol.email]).code == 0)
        #expect(try readBy() == "Read by 1/1")
        #expect(try alice.run(["add", "\(c)", dave.email]).code == 0)
        #expect(try readBy() == "Read by 1/2")
        #expect(try dave.run(["read", "\(c)"]).code == 0)
        #expect(try readBy() == "Read by 2/2")
        #expect(try bob.run(["leave", "\(c)"]).code == 0)
        #expect(try readBy() == "Read by 1/1")
        // `members` lists who is in now, with their last read.
        let members = try alice.run(["members", "\(c)", "--json"]).decode(MembersResponse.self)
        #expect(members.members.filter { $0.user.bot != true }.map(\.user.email) == [alice.email, dave.email])
        #expect(members.members.filter { $0.user.bot == true }.map(\.user.displayName) == ["alerts"])
        // Seqs 1 to 4: the hook's bot joining, m1, Carol's removal, Dave's join.
        #expect(members.members.first { $0.user.email == dave.email }?.readSeq == 4)
        #expect(members.members.filter { $0.user.bot != true }.allSatisfy { $0.user.online == false && $0.user.lastSeenAt != nil })
        let table = try alice.run(["members", "\(c)"]).out
        #expect(table.contains("Dave") && table.contains(" \(c)/4") && !table.contains("Bob"), "\(table)")
    }

    @Test func membershipChangesQueuedOfflineFlushInOrder() throws {
        let server = try TestServer()
        let (alice, bob, _, dave, c) = try group(on: server)
        #expect(try alice.run(["send", "\(c)", "online"]).code == 0)
        server.stop()
        #expect(try alice.run(["send", "\(c)", "before"]).code == 75)
        let add = try alice.run(["add", "\(c)", dave.email])
        #expect(add.code == 75, "\(add.err)")
        #expect(add.out.hasPrefix("queued add \(dave.email) to #\(c) "), "\(add.out)")
        #expect(try alice.run(["rename", "\(c)", "Offline", "name"]).code == 75)
        #expect(try alice.run(["send", "\(c)", "after"]).code == 75)
        let queued = try alice.run(["queue", "--json"]).out
        #expect(queued.contains("\"kind\":\"add\"") && queued.contains("\"kind\":\"rename\""), "\(queued)")

        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        let flush = try alice.run(["queue", "flush", "--now", "--json"])
        #expect(flush.code == 0, "\(flush.err)")
        #expect(try flush.decode(FlushJSON.self).sent.count == 4)
        // A second flush (the acknowledgements lost) repeats nothing.
        #expect(try alice.run(["queue", "flush", "--now"]).code == 0)
        let page = try bob.run(["history", "\(c)", "--json"]).decode(History.self).messages
        #expect(page.map { $0.text ?? "" } == ["online", "before", "Alice added Dave", "Alice renamed the group to \"Offline name\"", "after"])
        #expect(page.compactMap(\.seq) == [1, 2, 3, 4, 5])
        #expect(try dave.run(["history", "\(c)"]).code == 0)
    }

    /// Two replicas on one PostgreSQL database: carol reads through B, is removed through
    /// A, and B refuses her at once (no cache of B's may keep her in). Her `tail -f` of the
    /// group through B ends too, woken by A's note, well within its 25 s poll.
    @Test(.enabled(if: Backend.postgres != nil, "needs PostgreSQL: replicas share its database"))
    func aRemovedMemberIsRefusedAtOnceThroughAnotherReplica() throws {
        let a = try TestServer()
        let b = try TestServer(database: a.databasePath)
        defer { a.stop(); b.stop() }
        let (alice, _, carol, _, c) = try group(on: a, serverFor: { $0 == "carol" ? b.url : "" })
        #expect(try alice.run(["send", "\(c)", "hello"]).code == 0)
        for _ in 0..<3 { #expect(try carol.run(["history", "\(c)"]).code == 0) }
        let (carolTail, carolOut, carolErr) = try carol.spawn(["tail", "-f", "\(c)", "--json"])
        defer { if carolTail.isRunning { carolTail.terminate() } }
        #expect(carolOut.wait { $0.contains { $0.contains("hello") } }, "\(carolErr.text)")
        #expect(try alice.run(["remove", "\(c)", carol.email]).code == 0)
        #expect(ends(carolTail, within: 10) && carolTail.terminationStatus == 3, "carol's tail -f through B still runs after her removal: \(carolErr.text)")
        // Her history is now her cache's: the server said she is not a member.
        let refused = try carol.run(["history", "\(c)", "--json"])
        #expect(refused.code == 0, "\(refused.out)\(refused.err)")
        #expect(try refused.decode(History.self).notAMember == true, "\(refused.out)")
        #expect(try carol.run(["send", "\(c)", "through b"]).code == 3)
        // Added again through A: through B at once, with the whole history.
        #expect(try alice.run(["add", "\(c)", carol.email]).code == 0)
        let back = try carol.run(["history", "\(c)", "--json"])
        #expect(back.code == 0, "\(back.err)")
        #expect(try back.decode(History.self).messages.compactMap(\.seq) == [1, 2, 3])
    }
}
