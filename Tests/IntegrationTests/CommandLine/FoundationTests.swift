import Foundation
import NexusCore
import Testing

/// The first end-to-end slice, with the real nexusd and the real nexusctl processes.
@Suite(.harness)
struct FoundationTests {
    @Test func registerLoginAndWrongPassword() throws {
        let server = try TestServer()
        let alice = try User("alice", server: server.url)
        try alice.register(name: "Alice")

        let who = try alice.run(["whoami", "--json"])
        #expect(who.code == 0)
        #expect(try who.decode(AccountJSON.self).user.email == alice.email)

        let session = alice.home + "/default/session.json"
        let mode = try FileManager.default.attributesOfItem(atPath: session)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try !String(contentsOfFile: session, encoding: .utf8).contains("password123"))

        let again = try alice.run(["register", alice.email, "--password-stdin"], stdin: "password123\n")
        #expect(again.code == 1)
        #expect(again.err.contains("already exists"))

        let wrong = try alice.run(["login", alice.email, "--password-stdin"], stdin: "not-the-password\n")
        #expect(wrong.code == 4)
        #expect(wrong.err.contains("Incorrect email or password."))

        let right = try alice.run(["login", alice.email, "--password-stdin"], stdin: "password123\n")
        #expect(right.code == 0)
        #expect(right.err.contains("Logged in as Alice"))

        let noTerminal = try alice.run(["login", alice.email])
        #expect(noTerminal.code == 2)
        #expect(noTerminal.err.contains("--password-stdin"))

        #expect(try alice.run(["logout"]).code == 0)
        let after = try alice.run(["whoami"])
        #expect(after.code == 4)
        #expect(after.err.contains("not logged in"))
    }

    @Test func logoutRevokesTheTokenOnTheServer() throws {
        let server = try TestServer()
        let alice = try User("alice", server: server.url)
        try alice.register()
        // With the old session put back, the server must refuse its token.
        try alice.revokeTokenKeepingSession()
        let r = try alice.run(["convos"])
        #expect(r.code == 4)
    }

    @Test func directConversationIsNeverDuplicated() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()

        let first = try alice.run(["new", bob.email, "--json"])
        #expect(first.code == 0)
        let created = try first.decode(ConversationResponse.self)
        #expect(created.created)
        let id = created.conversation.id

        let second = try alice.run(["new", bob.email])
        #expect(second.code == 0)
        #expect(second.out.contains("Reusing conversation \(id)"))

        let fromBob = try bob.run(["new", alice.email, "--json"]).decode(ConversationResponse.self)
        #expect(fromBob.conversation.id == id)
        #expect(!fromBob.created)

        let convos = try bob.run(["convos", "--json"]).decode(ConvosJSON.self)
        #expect(convos.conversations.count == 1)
        #expect(!convos.offline)
    }

    @Test func sendThenTail() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()

        let sent = try alice.run(["send", bob.email, "hello", "bob"])
        #expect(sent.code == 0)
        #expect(sent.out.hasPrefix("sent "))
        let fromStdin = try alice.run(["send", bob.email, "-"], stdin: "line one\nline two\n")
        #expect(fromStdin.code == 0)

        let tail = try bob.run(["tail", alice.email, "--json"])
        #expect(tail.code == 0)
        let lines = tail.decodeLines(TailLineJSON.self)
        #expect(lines.map(\.text) == ["hello bob", "line one\nline two"])
        #expect(lines.map(\.seq) == [1, 2])
        #expect(lines.allSatisfy { $0.sender == alice.email && $0.type == "message" })

        let text = try bob.run(["tail"])
        #expect(text.out.contains("Alice: hello bob"))
    }

    @Test func tailFollowPrintsMessagesSentAfterItStarted() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "before"]).code == 0)

        let (tail, out, err) = try bob.spawn(["tail", "-f", "--json"])
        defer { tail.terminate() }
        #expect(out.wait { $0.count == 1 }, "tail -f did not print the earlier message: \(err.text)")
        for i in 1...5 { #expect(try alice.run(["send", bob.email, "live \(i)"]).code == 0) }
        #expect(out.wait { $0.count == 6 }, "tail -f saw \(out.lines.count) lines: \(out.text) \(err.text)")
        let texts = decodeLines(out.text, as: Message.self).map(\.text)
        #expect(texts == ["before", "live 1", "live 2", "live 3", "live 4", "live 5"])
    }

    @Test func tailFollowSurvivesAServerRestartWithoutSkipsOrRepeats() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "one"]).code == 0)
        let (tail, out, _) = try bob.spawn(["tail", "-f", "--json"])
        defer { tail.terminate() }
        #expect(out.wait { $0.count == 1 })

        let port = server.port
        server.stop()
        let restarted = try TestServer(directory: server.directory, port: port)
        defer { restarted.stop() }
        #expect(try alice.run(["send", bob.email, "two"]).code == 0)
        #expect(out.wait(timeout: 15) { $0.count == 2 }, "after restart: \(out.text)")
        let texts = decodeLines(out.text, as: Message.self).map(\.text)
        #expect(texts == ["one", "two"])
    }

    @Test func nonMemberGetsNotFound() throws {
        let server = try TestServer()
        let alice = try User("alice", server: server.url)
        let bob = try User("bob", server: server.url)
        let carol = try User("carol", server: server.url)
        for u in [alice, bob, carol] { try u.register() }
        let id = String(try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id)

        let send = try carol.run(["send", id, "let me in"])
        #expect(send.code == 3)
        #expect(send.err.contains("Conversation not found."))
        let tail = try carol.run(["tail", id])
        #expect(tail.code == 3)
        #expect(tail.err.contains("Conversation not found."))
    }

    @Test func badInputGetsAClearError() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()

        let empty = try alice.run(["send", bob.email, ""])
        #expect(empty.code == 2)
        #expect(empty.err.contains("message text is empty"))

        let big = try alice.run(["send", bob.email, "-"], stdin: String(repeating: "a", count: 70 * 1024))
        #expect(big.code == 2)
        #expect(big.err.contains("the limit is 65536 bytes"))

        let unknown = try alice.run(["send", "9999", "hello"])
        #expect(unknown.code == 3)
        #expect(unknown.err.contains("Conversation not found."))

        let nobody = try alice.run(["new", "nobody@example.com"])
        #expect(nobody.code == 3)
        #expect(nobody.err.contains("No user with email nobody@example.com."))

        let notConversation = try alice.run(["send", "bob", "hi"])
        #expect(notConversation.code == 2)
        #expect(notConversation.err.contains("is not a conversation"))

        // Nothing was kept for the rejected input: no retry could fix it.
        #expect(try alice.run(["queue", "--json"]).decode([QueueEntryJSON].self).isEmpty)
    }

    @Test func serverNotRunning() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["new", bob.email]).code == 0)
        server.stop()

        let users = try alice.run(["users"])
        #expect(users.code == 75)
        #expect(users.err.contains("can't reach the server"))
        #expect(users.err.contains("connection refused"))

        let who = try alice.run(["whoami"])
        #expect(who.code == 0)
        #expect(who.err.contains("offline"))

        var codes: [Int32] = []
        for i in 1...20 { codes.append(try alice.run(["send", bob.email, "queued \(i)"]).code) }
        #expect(codes == Array(repeating: 75, count: 20))
        let queued = try alice.run(["queue", "--json"]).decode([QueueEntryJSON].self)
        #expect(queued.count == 20)

        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        // Each failed send set a backoff (1 s, or more for a message a later send tried
        // again once it was due, as on a slow machine); a flush respects it, as cron's would.
        let due = queued.compactMap(\.nextAttemptAt?.milliseconds).max() ?? 0
        Thread.sleep(forTimeInterval: max(0, Double(due - Timestamp.now().milliseconds) / 1000) + 0.1)
        let flush = try alice.run(["queue", "flush", "--json"])
        #expect(flush.code == 0)
        #expect(try flush.decode(FlushJSON.self).sent.count == 20)

        let tail = try bob.run(["tail", "-n", "50", "--json"])
        let texts = tail.decodeLines(Message.self).map(\.text)
        #expect(texts == (1...20).map { "queued \($0)" })
        #expect(try alice.run(["queue", "--json"]).decode([QueueEntryJSON].self).isEmpty)
    }
}
