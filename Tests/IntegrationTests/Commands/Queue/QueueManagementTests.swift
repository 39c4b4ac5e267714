import Foundation
import NexusCore
import Testing

/// The outbox, manageable: `queue drop` (never sent afterwards, even by a flush
/// already running in another process), the cap ("Offline queue is full"), the retry limit
/// ("Retry limit exceeded"), and the warnings for input that is not valid UTF-8.
/// Real nexusd, real nexusctl processes.
@Suite(.harness)
struct QueueManagementTests {
    /// alice and bob on a fresh server, with a direct conversation; returns its id.
    func setUp() throws -> (TestServer, User, User, String) {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        let id = try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id
        return (server, alice, bob, String(id))
    }

    /// The user with a config file holding `lines`.
    func configure(_ user: User, _ lines: String) throws {
        let folder = user.home + "/no-config/nexus"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try lines.write(toFile: folder + "/config", atomically: true, encoding: .utf8)
    }

    /// Runs `script` in sh with $0 the nexusctl binary, as `user`: argv and stdin may then
    /// carry bytes that are not UTF-8, which Foundation's Process can't pass.
    func shell(_ user: User, _ script: String) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, Binaries.nexusctl]
        process.environment = user.environment
        return try runToEnd(process)
    }

    /// `result`'s stdout as `T`, or an error that shows what it was.
    func decoded<T: Decodable>(_ type: T.Type, _ result: Result) throws -> T {
        guard let value = try? result.decode(T.self) else {
            throw HarnessError("not \(T.self) as JSON (exit \(result.code)): '\(result.out)' stderr: \(result.err)")
        }
        return value
    }

    @Test func dropWhileAFlushRunsInAnotherProcessIsNeverSent() throws {
        let (server, alice, bob, conversation) = try setUp()
        defer { server.stop() }
        var offline = alice
        offline.server = "http://127.0.0.1:9"
        // Two batches (500 a request): the flush holds the first in flight while we drop.
        let ids = try offline.queueOffline(510, to: conversation)
        #expect(ids.count == 510)

        let proxy = try FaultProxy(upstreamPort: server.port)
        proxy.holdNextRequest()
        var viaProxy = alice
        viaProxy.server = proxy.url
        let flush = try Spawned(viaProxy, ["queue", "flush", "--now", "--json"])
        let deadline = Date().addingTimeInterval(20)
        while proxy.heldRequest == nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        let held = try #require(proxy.heldRequest, "the flush sent nothing: \(flush.err)")
        #expect(held.hasPrefix("POST /v1/messages/batch"))

        // Not in flight (the second batch): dropped at once, and never sent.
        let later = [ids[505], ids[509]]
        let drop = try alice.run(["queue", "drop", "--yes", "--json"] + later)
        #expect(drop.code == 0, "\(drop.err)")
        let dropped = try decoded([DropJSON].self, drop)
        #expect(dropped.map(\.localId) == later)
        #expect(dropped.allSatisfy { $0.status == "dropped" })

        // A send queued behind the running flush (it waits for the flush lock), dropped meanwhile.
        let waitingSend = try Spawned(alice, ["send", conversation, "never mind"])
        var queuedSend: String?
        let queuedBy = Date().addingTimeInterval(30)
        while queuedSend == nil && Date() < queuedBy {
            let listed = try alice.run(["queue", "--json"])
            queuedSend = (try? listed.decode([QueueEntryJSON].self))?.first { $0.text == "never mind" }?.localId
            if queuedSend == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        let neverMind = try #require(queuedSend)
        #expect(try alice.run(["queue", "drop", "--yes", neverMind]).code == 0)

        // In flight (the first batch): the drop waits for the request's verdict.
        let inFlight = try Spawned(alice, ["queue", "drop", "--yes", "--json", ids[2]])
        #expect(inFlight.waitForErr(timeout: 30) { $0.contains("Waiting for the delivery that is sending") },
                "a drop of a message in flight did not wait: \(inFlight.out) \(inFlight.err)")
        Thread.sleep(forTimeInterval: 0.2)
        #expect(inFlight.process.isRunning)
        proxy.release()

        let flushCode = flush.finish()
        #expect(flushCode == 0, "\(flush.err)")
        let flushed = try decoded(FlushJSON.self, flush.result)
        #expect(flushed.sent.count == 508)
        #expect(!flushed.sent.contains(ids[505]) && !flushed.sent.contains(ids[509]))

        #expect(inFlight.finish() == 1, "\(inFlight.err)")
        let tooLate = try decoded([DropJSON].self, inFlight.result)
        #expect(tooLate.map(\.status) == ["sent"])
        #expect(tooLate.first?.ref == "\(conversation)/3")
        #expect(inFlight.err.contains("too late to drop"))

        #expect(waitingSend.finish() == 1, "\(waitingSend.err)")
        #expect(waitingSend.err.contains("was dropped with `nexusctl queue drop` before it was sent"), "\(waitingSend.err)")

        let stored = try bob.serverMessages()
        #expect(stored.count == 508)
        #expect(Set(later).isDisjoint(with: stored.map(\.localId)), "a dropped message reached the server")
        #expect(stored.map(\.localId) == ids.filter { !later.contains($0) }, "not in queue order")
        #expect(!stored.contains { $0.text == "m 506" || $0.text == "m 510" || $0.text == "never mind" })
        #expect(try alice.outboxEntries().isEmpty)
    }

    @Test func dropAsksOnATerminalAndScriptsNeedYes() throws {
        let (server, alice, bob, conversation) = try setUp()
        defer { server.stop() }
        var offline = alice
        offline.server = "http://127.0.0.1:9"
        let ids = try offline.queueOffline(3, to: conversation)

        // On a terminal (script(1) gives it one) it asks: "n" keeps the message, "y" drops it.
        let no = try shell(alice, #"printf 'n\n' | script -qec "'$0' queue drop \#(ids[2])" /dev/null"#)
        #expect(no.code == 1, "\(no.out)")
        #expect(no.out.contains("Drop 1 message(s)? They will never be sent. [y/N]"))
        #expect(no.out.contains("nothing was dropped"))
        #expect(try alice.outboxEntries().map(\.localId) == ids)
        let yes = try shell(alice, #"printf 'y\n' | script -qec "'$0' queue drop \#(ids[2])" /dev/null"#)
        #expect(yes.code == 0, "\(yes.out)")
        #expect(yes.out.contains("dropped \(ids[2])"))
        #expect(try alice.outboxEntries().map(\.localId) == [ids[0], ids[1]])

        let noTerminal = try alice.run(["queue", "drop", ids[0]])
        #expect(noTerminal.code == 2)
        #expect(noTerminal.err.contains("--yes"))
        let unknown = try alice.run(["queue", "drop", "--yes", ids[0], "no-such-id"])
        #expect(unknown.code == 3)
        #expect(unknown.err.contains("no-such-id"))
        // Nothing was dropped by either.
        #expect(try alice.outboxEntries().map(\.localId) == [ids[0], ids[1]])

        let text = try alice.run(["queue", "drop", "--yes", ids[0]])
        #expect(text.code == 0, "\(text.err)")
        #expect(text.out == "dropped \(ids[0])\n")
        #expect(try alice.outboxEntries().map(\.localId) == [ids[1]])
        #expect(try alice.run(["queue", "flush", "--now"]).code == 0)
        #expect(try bob.serverMessages().map(\.localId) == [ids[1]])
    }

    @Test func aFullQueueRefusesNewMessagesAndKeepsWhatIsQueued() throws {
        let (server, alice, bob, conversation) = try setUp()
        defer { server.stop() }
        try configure(alice, "queue-limit = 3\n")
        var offline = alice
        offline.server = "http://127.0.0.1:9"
        let ids = try offline.queueOffline(3, to: conversation)

        let full = try offline.run(["send", conversation, "one too many"])
        #expect(full.code == 6)
        #expect(full.err.contains("Offline queue is full"))
        #expect(full.err.contains("queue-limit"))
        let lines = try offline.run(["send", conversation, "--each-line"], stdin: "a\nb\n")
        #expect(lines.code == 6)
        #expect(lines.err.contains("error: stdin line 1: Offline queue is full"))
        #expect(try alice.outboxEntries().map(\.localId) == ids)

        // Once delivered, there is room again; nothing queued was lost.
        #expect(try alice.run(["queue", "flush", "--now"]).code == 0)
        #expect(try alice.run(["send", conversation, "room again"]).code == 0)
        #expect(try bob.serverMessages().map(\.text) == ["m 1", "m 2", "m 3", "room again"])
    }

    @Test func aMessageTriedLongerThanTheRetryLimitFailsAndRetrySendsIt() throws {
        let (server, alice, bob, conversation) = try setUp()
        defer { server.stop() }
        try configure(alice, "retry-limit = 2s\n")
        var offline = alice
        offline.server = "http://127.0.0.1:9"
        let sent = try offline.run(["send", conversation, "patience", "--json"])
        #expect(sent.code == 75)
        let localId = try sent.decode(SentJSON.self).localId

        // Within the limit, a failed try only defers it.
        #expect(try offline.run(["queue", "flush", "--now"]).code == 75)
        #expect(try alice.outboxEntries().first?.status == "queued")
        Thread.sleep(forTimeInterval: 2.2)
        let flush = try offline.run(["queue", "flush", "--now", "--json"])
        #expect(flush.code == 1, "\(flush.err)")
        #expect(try flush.decode(FlushJSON.self).failed == [localId])
        let entry = try #require(try alice.outboxEntries().first)
        #expect(entry.status == "failed")
        #expect(entry.lastError?.hasPrefix("Retry limit exceeded: tried for 2s.") == true, "\(entry.lastError ?? "")")
        // A failed message is not tried again by itself.
        #expect(try alice.run(["queue", "flush", "--now"]).code == 0)
        #expect(try bob.serverMessages().isEmpty)

        let retry = try alice.run(["retry", localId])
        #expect(retry.code == 0, "\(retry.err)")
        #expect(try bob.serverMessages().map(\.localId) == [localId])
    }

    @Test func invalidUTF8IsSentReplacedAndWarnedWithItsLine() throws {
        let (server, alice, bob, conversation) = try setUp()
        defer { server.stop() }
        // argv
        let argv = try shell(alice, #""$0" send \#(conversation) --json "$(printf 'ok \377 here')""#)
        #expect(argv.code == 0, "\(argv.err)")
        #expect(argv.err.contains("warning: command-line text line 1: bytes that are not valid UTF-8 were replaced with U+FFFD"))
        #expect(try argv.decode(SentWarningJSON.self).warning?.hasPrefix("command-line text line 1:") == true)

        // stdin as one message: the line within it
        let stdin = try shell(alice, #"printf 'first\nsecond \376\nthird\n' | "$0" send \#(conversation) - --json"#)
        #expect(stdin.code == 0, "\(stdin.err)")
        #expect(stdin.err.contains("warning: stdin line 2: bytes that are not valid UTF-8 were replaced"))
        #expect(try stdin.decode(SentWarningJSON.self).warning?.hasPrefix("stdin line 2:") == true)

        // --each-line: the line of stdin, on the message it became
        let each = try shell(alice, #"printf 'clean\nbad \300 byte\n' | "$0" send \#(conversation) --each-line --json"#)
        #expect(each.code == 0, "\(each.err)")
        #expect(each.err.contains("warning: stdin line 2: bytes that are not valid UTF-8 were replaced"))
        let views = try each.decode([SentWarningJSON].self)
        #expect(views.map(\.warning) == [nil, "stdin line 2: bytes that are not valid UTF-8 were replaced with U+FFFD (\u{FFFD}) and sent so"])

        // Clean input warns of nothing.
        let clean = try alice.run(["send", conversation, "plain", "--json"])
        #expect(!clean.err.contains("warning"))
        #expect(try clean.decode(SentWarningJSON.self).warning == nil)

        #expect(try bob.serverMessages().map(\.text) == ["ok \u{FFFD} here", "first\nsecond \u{FFFD}\nthird", "clean", "bad \u{FFFD} byte", "plain"])
    }
}

/// One item of `queue drop --json`.
struct DropJSON: Decodable {
    var localId: String
    var status: String
    var ref: String?
}

/// A `send --json` result with its UTF-8 warning.
struct SentWarningJSON: Decodable {
    var localId: String
    var status: String
    var warning: String?
}

/// A nexusctl process running beside the test, its stdout and stderr going to files: read
/// after it exits, they are whole (a pipe's reader may still lag behind on a loaded machine).
final class Spawned {
    let process = Process()
    private let outPath: String
    private let errPath: String

    init(_ user: User, _ args: [String]) throws {
        let folder = try makeTempDir("spawned")
        outPath = folder + "/out"
        errPath = folder + "/err"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: Binaries.nexusctl)
        process.arguments = args
        process.environment = user.environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        try launch(process) {}
    }

    var out: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
    var err: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }

    /// Waits for the exit; returns the status.
    func finish() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    var result: Result { Result(code: process.terminationStatus, out: out, err: err) }

    func waitForErr(timeout: Double, until condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(err) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition(err)
    }
}
