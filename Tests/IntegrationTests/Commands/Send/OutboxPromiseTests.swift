import Foundation
@testable import NexusCore
import Testing

/// The outbox promises once found broken: a NUL cut a
/// message short, a usage error still queued it, a message queued to an email was
/// overtaken, a damaged record was lost while the flush said all was well, and a frozen
/// server hung the client. Real nexusd, real nexusctl.
@Suite(.harness)
struct OutboxPromiseTests {
    struct Opened: Decodable {
        struct Conversation: Decodable { var id: Int64 }
        var conversation: Conversation
    }

    struct SendView: Decodable {
        var localId: String
        var status: String
    }

    struct FlushView: Decodable {
        struct Damaged: Decodable {
            var line: Int
            var localId: String?
        }
        var sent: [String]
        var queued: [String]
        var failed: [String]
        var damaged: [Damaged]
    }

    func decode<T: Decodable>(_ type: T.Type, _ r: Result) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(r.out.utf8))
    }

    /// alice and bob on a fresh server; `opener` opens their direct conversation.
    func setUp(openedBy opener: (User, User) -> User = { alice, _ in alice }) throws -> (TestServer, User, User, String) {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        let who = opener(alice, bob)
        let other = who.email == alice.email ? bob : alice
        let id = try decode(Opened.self, try who.run(["new", other.email, "--json"])).conversation.id
        return (server, alice, bob, String(id))
    }

    // MARK: - Item 3: NUL

    @Test func aNulIsRefusedWithItsPlaceBeforeAnythingIsQueued() throws {
        let (server, alice, bob, conversation) = try setUp()
        defer { server.stop() }
        let whole = try alice.run(["send", conversation, "-"], stdin: "before\0after")
        #expect(whole.code == 2, "\(whole.err)")
        #expect(whole.err.contains("NUL character at line 1, column 7 (byte offset 6)"), "\(whole.err)")
        let lines = try alice.run(["send", conversation, "--each-line"], stdin: "one\n\ntwo\nthr\0ee\n")
        #expect(lines.code == 2)
        #expect(lines.err.contains("stdin line 4: message text contains a NUL character at line 1, column 4"), "\(lines.err)")
        #expect(try alice.outboxEntries().isEmpty, "nothing is queued")
        #expect(try bob.serverMessages().isEmpty, "bob sees nothing, not a message cut short")
    }

    // MARK: - Item 6: a usage error queues nothing

    @Test func aUsageErrorQueuesNothingOnAnyPathOfSend() throws {
        let (server, alice, bob, conversation) = try setUp()
        defer { server.stop() }
        let bad = "htp://127.0.0.1:\(server.port)"
        #expect(try alice.run(["--server", bad, "send", conversation, "deploy finished"]).code == 2)
        #expect(try alice.run(["--server", bad, "send", conversation, "-"], stdin: "from stdin\n").code == 2)
        #expect(try alice.run(["--server", bad, "send", conversation, "--each-line"], stdin: "a\nb\n").code == 2)
        var badEnvironment = alice
        badEnvironment.server = "http://127.0.0.1:\(server.port),ftp://nowhere"
        #expect(try badEnvironment.run(["send", bob.email, "by email"]).code == 2)
        #expect(try alice.outboxEntries().isEmpty, "a usage error queued a message")

        #expect(try alice.run(["send", conversation, "deploy finished"]).code == 0)
        #expect(try bob.serverMessages().map(\.text) == ["deploy finished"], "the corrected resend is the only copy")
    }

    @Test func aUsageErrorLeavesAFailedMessageFailedOnRetry() throws {
        let (server, alice, bob, conversation) = try setUp()
        defer { server.stop() }
        try alice.revokeTokenKeepingSession()
        #expect(try alice.run(["send", conversation, "needs a login"]).code == 4)
        #expect(try alice.run(["login", alice.email, "--password-stdin"], stdin: "password123\n").code == 0)
        let bad = try alice.run(["--server", "htp://127.0.0.1:\(server.port)", "retry", "--all"])
        #expect(bad.code == 2)
        #expect(try alice.outboxEntries().map(\.status) == ["failed"], "the usage error touched the outbox")
        #expect(try alice.run(["retry", "--all"]).code == 0)
        #expect(try bob.serverMessages().map(\.text) == ["needs a login"])
    }

    // MARK: - Item 7: a message queued to an email keeps its place

    @Test func aMessageQueuedToAnEmailIsNotOvertakenByASendById() throws {
        // bob opens it: alice's profile does not know the conversation.
        let (server, alice, bob, conversation) = try setUp(openedBy: { _, bob in bob })
        server.stop()
        #expect(try alice.run(["send", bob.email, "A-first"]).code == 75)
        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        let second = try alice.run(["send", conversation, "A-second"])
        #expect(second.code == 0, "\(second.err)")
        let seen = try bob.serverMessages()
        #expect(seen.map(\.text) == ["A-first", "A-second"])
        #expect(seen.map(\.seq) == [1, 2])
        #expect(try alice.outboxEntries().isEmpty)
    }

    /// The variant through `read <id>`: it teaches the profile the conversation after the
    /// first message was queued to the email, and the next send by email knows the id.
    @Test func aMessageQueuedToAnEmailIsNotOvertakenAfterReadTeachesTheId() throws {
        let (server, alice, bob, conversation) = try setUp(openedBy: { _, bob in bob })
        #expect(try bob.run(["send", conversation, "hello alice"]).code == 0)
        server.stop()
        #expect(try alice.run(["send", bob.email, "A-first"]).code == 75)
        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        #expect(try alice.run(["read", conversation]).code == 0)
        let second = try alice.run(["send", bob.email, "A-second"])
        #expect(second.code == 0, "\(second.err)")
        let seen = try bob.serverMessages()
        #expect(seen.map(\.text) == ["hello alice", "A-first", "A-second"])
        #expect(seen.map(\.seq) == [1, 2, 3])
    }

    // MARK: - Item 12: a damaged record is named, counted and fails the flush until repaired

    @Test func aDamagedRecordFailsTheFlushUntilRepaired() throws {
        let (server, alice, bob, conversation) = try setUp()
        server.stop()
        // Enough records that the flush's compaction rewrites the file: it must keep the damage.
        let localIds = try alice.queueOffline(40, to: conversation)
        let path = alice.home + "/default/outbox.jsonl"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let lines = bytes.split(separator: 10, omittingEmptySubsequences: false)
        let victim = try #require(lines.firstIndex { String(decoding: $0, as: UTF8.self).contains(localIds[4]) })
        // One changed byte inside that message's `queued` record: the colon after "text".
        let lineStart = lines[..<victim].reduce(0) { $0 + $1.count + 1 }
        let line = Array(lines[victim])
        let key = Array("\"text\":".utf8)
        let at = try #require((0...(line.count - key.count)).first { Array(line[$0..<($0 + key.count)]) == key })
        bytes[lineStart + at + key.count - 1] = UInt8(ascii: ";")
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        let flush = try alice.run(["queue", "flush", "--now"])
        #expect(flush.code == 6, "\(flush.out)\(flush.err)")
        #expect(flush.out == "sent 39, queued 0, failed 0, damaged 1\n")
        #expect(flush.err.contains("line \(victim + 1)"), "\(flush.err)")
        #expect(flush.err.contains(localIds[4]), "\(flush.err)")
        #expect(flush.err.contains("queue repair"))
        let again = try alice.run(["queue", "flush", "--json"])
        #expect(again.code == 6, "the damage is still there: the flush must still say so")
        let view = try decode(FlushView.self, again)
        #expect(view.damaged.map(\.localId) == [localIds[4]])
        #expect(view.sent.isEmpty && view.failed.isEmpty)

        let shown = try alice.run(["queue", "repair"])
        #expect(shown.code == 6)
        #expect(shown.out.contains(localIds[4]))
        #expect(shown.out.contains("m 5"), "what can be read of it is shown: \(shown.out)")
        #expect(try alice.run(["queue", "repair", "--drop"]).code == 0)
        #expect(try alice.run(["queue", "repair"]).code == 0)
        #expect(try alice.run(["queue", "flush"]).code == 0)
        #expect(try bob.serverMessages().map(\.localId) == localIds.filter { $0 != localIds[4] })
    }

    @Test func aTornLastLineIsHarmlessToTheFlush() throws {
        let (server, alice, bob, conversation) = try setUp()
        server.stop()
        let localIds = try alice.queueOffline(3, to: conversation)
        let path = alice.home + "/default/outbox.jsonl"
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data("{\"localId\":\"half-writ".utf8))
        try handle.close()
        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        let flush = try alice.run(["queue", "flush", "--now"])
        #expect(flush.code == 0, "\(flush.err)")
        #expect(flush.out == "sent 3, queued 0, failed 0\n")
        #expect(try bob.serverMessages().map(\.localId) == localIds)
    }

    // MARK: - Item 13: a frozen server neither hangs the client nor holds the lock

    @Test func aFrozenServerNeitherHangsAFlushNorTheSendBehindIt() throws {
        let (server, alice, bob, conversation) = try setUp()
        server.stop()
        // 12 MB queued: 200 messages of 60 KiB.
        let lines = (1...200).map { "\($0) " + String(repeating: "x", count: 60 * 1024) }.joined(separator: "\n") + "\n"
        let queued = try alice.run(["send", conversation, "--each-line", "--json"], stdin: lines)
        #expect(queued.code == 75)
        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        kill(restarted.process.processIdentifier, SIGSTOP)
        var resumed = false
        defer { if !resumed { kill(restarted.process.processIdentifier, SIGCONT) } }

        let start = Date()
        let (flush, _, flushErr) = try alice.spawn(["queue", "flush", "--now"])
        Thread.sleep(forTimeInterval: 0.5)
        let (send, _, sendErr) = try alice.spawn(["send", conversation, "behind the flush"])
        let bound = Date().addingTimeInterval(90)
        while (flush.isRunning || send.isRunning) && Date() < bound { Thread.sleep(forTimeInterval: 0.1) }
        let hung = flush.isRunning || send.isRunning
        if flush.isRunning { kill(flush.processIdentifier, SIGKILL) }
        if send.isRunning { kill(send.processIdentifier, SIGKILL) }
        flush.waitUntilExit()
        send.waitUntilExit()
        #expect(!hung, "a client hung on the frozen server for \(Int(Date().timeIntervalSince(start))) s")
        #expect(flush.terminationStatus == 75, "\(flushErr.text)")
        #expect(send.terminationStatus == 75, "\(sendErr.text)")
        #expect(flushErr.text.contains("did not answer in time"), "\(flushErr.text)")
        let lock = try FileLock.tryAcquire(alice.home + "/default/flush.lock")
        #expect(lock != nil, "the flush lock is still held")
        lock?.unlock()

        kill(restarted.process.processIdentifier, SIGCONT)
        resumed = true
        let final = try alice.run(["queue", "flush", "--now"])
        #expect(final.code == 0, "\(final.err)")
        let seen = try bob.serverMessages()
        #expect(seen.count == 201, "every message once")
        #expect(seen.map(\.seq) == Array(1...201))
        #expect(seen.last?.text == "behind the flush")
    }
}
