import Foundation
@testable import NexusCore
import Testing

/// The outbox promises: nothing lost, nothing duplicated, whatever the network,
/// a crash or a kill -9 does. Real nexusd, real nexusctl processes.
@Suite(.harness)
struct OutboxDeliveryTests {
    /// alice and bob on a fresh server, with a direct conversation; returns its id.
    func setUp() throws -> (TestServer, User, User, String) {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        let id = try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id
        return (server, alice, bob, String(id))
    }

    @Test func sendWhileDownQueuesThenFlushDeliversInOrder() throws {
        let (server, alice, bob, conversation) = try setUp()
        server.stop()
        var localIds: [String] = []
        for i in 1...20 {
            let r = try alice.run(["send", conversation, "offline \(i)", "--json"])
            #expect(r.code == 75)
            #expect(r.err.contains("Message queued: can't reach the server at"), "\(r.err)")
            localIds.append(try r.decode(SentJSON.self).localId)
        }
        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        let flush = try alice.run(["queue", "flush", "--now", "--json"])
        #expect(flush.code == 0, "\(flush.err)")
        #expect(try flush.decode(FlushJSON.self).sent == localIds)
        let stored = try bob.serverMessages()
        #expect(stored.map(\.localId) == localIds)
        #expect(stored.map(\.text) == (1...20).map { "offline \($0)" })
        #expect(stored.map(\.seq) == Array(1...20))
    }

    @Test func flushRespectsTheBackoffUnlessNow() throws {
        let (server, alice, _, conversation) = try setUp()
        server.stop()
        #expect(try alice.run(["send", conversation, "one"]).code == 75)
        let due = try #require(try alice.outboxEntries().first?.nextAttemptAt)
        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        // The backoff is 1 s; a restart slower than that (a loaded machine) leaves nothing
        // to wait out, so the early flush is only meaningful before it ends.
        if Timestamp.now() < due {
            let early = try alice.run(["queue", "flush"])
            if Timestamp.now() < due {
                #expect(early.code == 75)
                #expect(early.err.contains("waiting out their backoff"))
            }
        }
        let entry = try #require(try alice.outboxEntries().first)
        #expect(entry.attempts == 1)
        #expect(entry.nextAttemptAt != nil)
        #expect(entry.lastError == "Message queued: can't reach the server at \(alice.server) (connection refused)")
        #expect(try alice.run(["queue", "flush", "--now"]).code == 0)
        #expect(try alice.outboxEntries().isEmpty)
    }

    @Test func killNineOfFlushLosesAndDuplicatesNothing() throws {
        let (server, alice, bob, conversation) = try setUp()
        server.stop()
        let localIds = try alice.queueOffline(2000, to: conversation)
        #expect(localIds.count == 2000)
        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }

        var killed = 0
        for _ in 0..<25 {
            let (flush, _, _) = try alice.spawn(["queue", "flush", "--now"])
            Thread.sleep(forTimeInterval: Double.random(in: 0.0...0.06))
            if flush.isRunning {
                kill(flush.processIdentifier, SIGKILL)
                killed += 1
            }
            flush.waitUntilExit()
        }
        #expect(killed > 0, "no flush was killed mid-way")
        let final = try alice.run(["queue", "flush", "--now"])
        #expect(final.code == 0, "\(final.err)")
        #expect(try alice.outboxEntries().isEmpty)

        let stored = try bob.serverMessages()
        #expect(stored.count == 2000)
        #expect(Set(stored.map(\.localId)) == Set(localIds))
        #expect(stored.map(\.localId) == localIds, "delivered out of order")
        #expect(stored.map(\.seq) == Array(1...2000))
    }

    @Test func killNineOfTheServerMidBatchLosesAndDuplicatesNothing() throws {
        let (server, alice, bob, conversation) = try setUp()
        server.stop()
        let localIds = try alice.queueOffline(2000, to: conversation)
        var current = try TestServer(directory: server.directory, port: server.port)
        for _ in 0..<3 {
            let (flush, _, _) = try alice.spawn(["queue", "flush", "--now"])
            Thread.sleep(forTimeInterval: Double.random(in: 0.01...0.08))
            current.kill9()
            flush.waitUntilExit()
            current = try TestServer(directory: server.directory, port: server.port)
        }
        defer { current.stop() }
        let final = try alice.run(["queue", "flush", "--now"])
        #expect(final.code == 0, "\(final.err)")
        let stored = try bob.serverMessages()
        #expect(stored.map(\.localId) == localIds)
        #expect(stored.map(\.seq) == Array(1...2000))
    }

    @Test func twoFlushesAndATailDeliverEverythingOnce() throws {
        let (server, alice, bob, conversation) = try setUp()
        server.stop()
        let localIds = try alice.queueOffline(1000, to: conversation)
        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        let (tail, out, err) = try bob.spawn(["tail", "-f", "--json", "-n", "0"])
        defer { tail.terminate() }
        Thread.sleep(forTimeInterval: 0.3)

        let (first, _, _) = try alice.spawn(["queue", "flush", "--now"])
        let (second, _, _) = try alice.spawn(["queue", "flush", "--now"])
        first.waitUntilExit()
        second.waitUntilExit()
        #expect(first.terminationStatus == 0)
        #expect(second.terminationStatus == 0)
        #expect(out.wait(timeout: 20) { $0.count >= 1000 }, "tail printed \(out.lines.count): \(err.text)")
        Thread.sleep(forTimeInterval: 0.3)
        let printed = decodeLines(out.text, as: TailLineJSON.self).compactMap(\.localId)
        #expect(printed == localIds)
        #expect(try bob.serverMessages().map(\.localId) == localIds)
    }

    @Test func aTornOutboxLineCostsOnlyThatRecord() throws {
        let (server, alice, bob, conversation) = try setUp()
        server.stop()
        var localIds: [String] = []
        for i in 1...3 {
            let r = try alice.run(["send", conversation, "m \(i)", "--json"])
            localIds.append(try r.decode(SentJSON.self).localId)
        }
        let path = alice.home + "/default/outbox.jsonl"
        let original = try String(contentsOfFile: path, encoding: .utf8)
        let last = try #require(decodeLines(original, as: OutboxRecord.self).last)
        // A crash in the middle of writing the last record.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: UInt64(original.utf8.count - 15))
        try handle.close()

        let list = try alice.run(["queue", "--json"])
        #expect(list.code == 0)
        #expect(list.err.contains("unreadable record"))
        let listed = try list.decode([QueueEntryJSON].self)
        // Only the torn record is lost: a torn `queued` record loses that message (its
        // send never reported it queued); any other record loses just that state change.
        let survivors = last.op == .queued ? localIds.filter { $0 != last.localId } : localIds
        #expect(listed.map(\.localId) == survivors)

        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        #expect(try alice.run(["send", conversation, "after the crash"]).code == 0)
        let repaired = try String(contentsOfFile: path, encoding: .utf8)
        #expect(repaired.hasSuffix("\n"))
        #expect(decodeLines(repaired, as: OutboxRecord.self).count == repaired.split(separator: "\n").count, "the file is repaired: every line is whole")
        let delivered = try bob.serverMessages()
        #expect(delivered.map(\.localId).dropLast() == ArraySlice(survivors))
        #expect(delivered.last?.text == "after the crash")
    }

    @Test func serverErrorsQueueWithBackoffAndHonourRetryAfter() throws {
        let (server, alice, bob, conversation) = try setUp()
        defer { server.stop() }
        let proxy = try FaultProxy(upstreamPort: server.port)
        var viaProxy = alice
        viaProxy.server = proxy.url

        proxy.fail(next: 1, status: 503, body: #"{"error":{"code":"unavailable","message":"Overloaded."}}"#)
        let unavailable = try viaProxy.run(["--server", proxy.url, "send", conversation, "through a 503", "--json"])
        #expect(unavailable.code == 75)
        #expect(unavailable.err.contains("Message queued: "), "\(unavailable.err)")
        #expect(try unavailable.decode(SentJSON.self).status == "queued")

        proxy.fail(next: 1, status: 429, headers: "Retry-After: 120\r\n", body: #"{"error":{"code":"rate_limited","message":"Slow down."}}"#)
        #expect(try viaProxy.run(["--server", proxy.url, "queue", "flush", "--now"]).code == 75)
        let entry = try #require(try alice.outboxEntries().first)
        let next = try #require(entry.nextAttemptAt)
        #expect(next.milliseconds - Timestamp.now().milliseconds > 100_000, "Retry-After: 120 was not honoured")

        #expect(try viaProxy.run(["--server", proxy.url, "queue", "flush", "--now"]).code == 0)
        #expect(try bob.serverMessages().map(\.text) == ["through a 503"])
        #expect(proxy.faultsServed == 2)
    }

    @Test func unauthorizedFailsAndRetryAfterLoginSendsOnce() throws {
        let (server, alice, bob, conversation) = try setUp()
        defer { server.stop() }
        try alice.revokeTokenKeepingSession()

        let refused = try alice.run(["send", conversation, "needs a login", "--json"])
        #expect(refused.code == 4)
        #expect(refused.err.contains("Message failed to send. Please try signing in again."))
        let localId = try refused.decode(SentJSON.self).localId
        #expect(try alice.outboxEntries().first?.status == "failed")

        #expect(try alice.run(["login", alice.email, "--password-stdin"], stdin: "password123\n").code == 0)
        let retried = try alice.run(["retry", localId])
        #expect(retried.code == 0, "\(retried.err)")
        #expect(retried.out.hasPrefix("sent \(localId) "), "\(retried.out)")
        let again = try alice.run(["retry", localId])
        #expect(again.code == 1)
        #expect(again.err.contains("is sent, not failed"))
        #expect(try bob.serverMessages().map(\.localId) == [localId])
    }

    @Test func aMessageTheServerRejectsFailsWithTheServersReason() throws {
        let (server, alice, _, conversation) = try setUp()
        defer { server.stop() }
        // A message queued by a client that did not check the size (the server must).
        let record = OutboxRecord(
            op: .queued, localId: "oversized-1", at: .now(), conversationId: Int64(conversation)!,
            text: String(repeating: "x", count: 70 * 1024))
        try Outbox(profile: Profile(name: "default", home: alice.home)).append([record])

        let flush = try alice.run(["queue", "flush", "--json"])
        #expect(flush.code == 1)
        #expect(try flush.decode(FlushJSON.self).failed == ["oversized-1"])
        #expect(flush.err.contains("Message failed to send. Please try again."))
        #expect(flush.err.contains("71680 bytes; the limit is 65536 bytes"))
        let entry = try #require(try alice.outboxEntries().first)
        #expect(entry.status == "failed")
    }

    @Test func onlineCommandsDeliverTheQueueOnTheSide() throws {
        let (server, alice, bob, conversation) = try setUp()
        server.stop()
        let queued = try alice.queueOffline(3, to: conversation)
        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        Thread.sleep(forTimeInterval: 1.1)  // past the first backoff
        let convos = try alice.run(["convos"])
        #expect(convos.code == 0)
        #expect(convos.err.contains("Delivered 3 queued message(s)."))
        #expect(try bob.serverMessages().map(\.localId) == queued)
    }

    @Test func tailFollowDeliversTheQueueWhenTheConnectionComesBack() throws {
        let (server, alice, bob, conversation) = try setUp()
        let (tail, _, err) = try alice.spawn(["tail", "-f", "-n", "0"])
        defer { tail.terminate() }
        Thread.sleep(forTimeInterval: 0.3)
        server.stop()
        let send = try alice.run(["send", conversation, "written in the tunnel", "--json"])
        #expect(send.code == 75)
        let localId = try send.decode(SentJSON.self).localId
        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        #expect(err.wait(timeout: 15) { _ in err.text.contains("Delivered 1 queued message(s).") }, "tail said: \(err.text)")
        #expect(try bob.serverMessages().map(\.localId) == [localId])
    }

    @Test func retryAllSendsEveryFailedMessageOnce() throws {
        let (server, alice, bob, conversation) = try setUp()
        defer { server.stop() }
        try alice.revokeTokenKeepingSession()
        #expect(try alice.run(["send", conversation, "one"]).code == 4)
        #expect(try alice.run(["send", conversation, "two"]).code == 4)
        #expect(try alice.outboxEntries().map(\.status) == ["failed", "failed"])

        #expect(try alice.run(["login", alice.email, "--password-stdin"], stdin: "password123\n").code == 0)
        let retried = try alice.run(["retry", "--all", "--json"])
        #expect(retried.code == 0, "\(retried.err)")
        #expect(try retried.decode([SentJSON].self).map(\.status) == ["sent", "sent"])
        #expect(try alice.run(["retry", "--all"]).err.contains("No failed messages"))
        #expect(try bob.serverMessages().map(\.text) == ["one", "two"])
    }
}
