import Foundation
@testable import NexusCore
import Testing

/// The sending use case, in-process, against a fake server with injected faults: the one
/// ordering rule, resolution of messages queued to an email, damaged records. A class, so
/// that each test's home folder is removed after it (deinit).
final class SendingTests {
    let home: String
    let profile: Profile
    let server = FakeSendingServer()
    let sending: Sending

    init() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-sending-\(UUID().uuidString)").path
        profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        sending = Sending(profile: profile, api: server)
    }

    deinit { try? FileManager.default.removeItem(atPath: home) }

    func send(_ texts: [String], to conversation: Int64? = nil, email: String? = nil) throws -> (ids: [String], report: DeliveryReport) {
        let mine = try sending.enqueue(texts, conversationId: conversation, to: email)
        let outcome = try sending.deliver(.conversationsOf(Set(mine.map(\.localId))), ignoreBackoff: true, lock: .wait(onBusy: nil))
        return (mine.map(\.localId), outcome.report)
    }

    func flush(now: Bool = true) throws -> Sending.Outcome {
        try sending.deliver(.everything, ignoreBackoff: now, lock: .wait(onBusy: nil))
    }

    /// Queued to an email while down, then a send by id to the same
    /// conversation; the first must keep seq 1.
    @Test func aMessageQueuedToAnEmailIsNotOvertakenByASendById() throws {
        server.directs["bob@example.com"] = 7  // bob opened it; this profile doesn't know yet
        server.down = true
        let first = try send(["A-first"], email: "bob@example.com")
        #expect(first.report.waiting.map(\.localId) == first.ids)
        #expect(first.report.stopReason != nil)
        server.down = false
        let second = try send(["A-second"], to: 7)
        #expect(server.messages(in: 7).map(\.text) == ["A-first", "A-second"])
        #expect(server.messages(in: 7).map(\.seq) == [1, 2])
        #expect(second.report.sent.map(\.entry.localId) == first.ids + second.ids)
        #expect(profile.loadDirects()["bob@example.com"] == 7, "the resolution is remembered")
        #expect(try Outbox(profile: profile).entries().allSatisfy { $0.status == .sent })
    }

    /// The variant: queued by id while down, then a send by email the profile can't map.
    @Test func aMessageQueuedByIdIsNotOvertakenByASendToTheEmail() throws {
        server.directs["bob@example.com"] = 3
        server.down = true
        let first = try send(["B-first"], to: 3)
        server.down = false
        _ = try send(["B-second"], email: "bob@example.com")
        #expect(server.messages(in: 3).map(\.text) == ["B-first", "B-second"])
        #expect(server.messages(in: 3).map(\.localId).first == first.ids.first)
    }

    /// A send takes the earlier messages of its own conversation only; others wait for a flush.
    @Test func aSendTakesOnlyItsConversation() throws {
        server.directs["carol@example.com"] = 2
        server.down = true
        _ = try send(["to one"], to: 1)
        _ = try send(["to carol"], email: "carol@example.com")
        server.down = false
        let r = try send(["one again"], to: 1)
        #expect(server.messages(in: 1).map(\.text) == ["to one", "one again"])
        #expect(server.messages(in: 2).isEmpty)
        #expect(r.report.sent.count == 2)
        #expect(try flush().report.sent.map(\.entry.text) == ["to carol"])
    }

    /// A message waiting out its backoff holds back the later ones of its conversation only.
    @Test func aMessageNotDueHoldsBackItsConversationOnly() throws {
        server.down = true
        _ = try send(["1a"], to: 1)
        _ = try send(["2a"], to: 2)
        server.down = false
        // Nothing is due (the failed tries set a backoff), so nothing goes without --now.
        _ = try sending.enqueue(["1b"], conversationId: 1, to: nil)
        _ = try sending.enqueue(["3a"], conversationId: 3, to: nil)
        let outcome = try flush(now: false)
        #expect(outcome.report.sent.map(\.entry.text) == ["3a"])
        #expect(outcome.report.waiting.map(\.text) == ["1a", "2a", "1b"])
        #expect(try flush(now: true).report.sent.map(\.entry.text) == ["1a", "2a", "1b"])
        #expect(server.messages(in: 1).map(\.text) == ["1a", "1b"])
    }

    /// A batch that fails mid-run (503, then a lost connection) leaves the rest queued in
    /// order; later runs deliver everything once, each conversation in its order.
    @Test func faultsMidFlushLoseAndRepeatNothing() throws {
        let texts = (1...10).map { "m\($0)" }
        server.down = true
        _ = try send(texts.filter { Int($0.dropFirst())! % 2 == 0 }, to: 1)
        _ = try send(texts.filter { Int($0.dropFirst())! % 2 == 1 }, to: 2)
        server.down = false
        var s = sending
        s.maxItems = 3
        server.faults = [.server(status: 503, code: "unavailable", message: "busy", retryAfter: nil)]
        let first = try s.deliver(.everything, ignoreBackoff: true, lock: .wait(onBusy: nil))
        #expect(first.report.sent.isEmpty)
        #expect(first.report.stillQueued == 10)
        _ = try s.deliver(.everything, ignoreBackoff: true, lock: .wait(onBusy: nil))
        #expect(server.stored.count == 10)
        #expect(server.messages(in: 1).map(\.text) == ["m2", "m4", "m6", "m8", "m10"])
        #expect(server.messages(in: 2).map(\.text) == ["m1", "m3", "m5", "m7", "m9"])
        #expect(try flush().report.sent.isEmpty, "nothing is sent twice")
    }

    /// A recipient without an account fails its messages, and only those.
    @Test func anUnknownRecipientFailsOnlyItsMessages() throws {
        server.strangers = ["nobody@example.com"]
        server.down = true
        let lost = try send(["to nobody"], email: "nobody@example.com")
        _ = try send(["to one"], to: 1)
        server.down = false
        let outcome = try flush()
        #expect(outcome.report.failed.map(\.localId) == lost.ids)
        #expect(outcome.report.notFound == Set(lost.ids))
        #expect(outcome.report.sent.map(\.entry.text) == ["to one"])
    }

    /// Each message has one verdict, read from its run: sent with its message, failed with
    /// what fixes it, queued with why and when it is tried next.
    @Test func eachMessageHasOneVerdictOfItsRun() throws {
        func told(_ v: DeliveryVerdict) -> String {
            switch v.kind {
            case .sent(let m): "sent \(m.text)"
            case .failed(let failure): "failed \(failure)"
            case .queued: "queued" + (v.entry.lastError == nil || v.entry.nextAttemptAt == nil ? " without why" : "")
            case .unchanged(let note): "unchanged \(note)"
            case .dropped: "dropped"
            case .applied: "applied"
            }
        }
        server.strangers = ["nobody@example.com"]
        let queued = try sending.enqueue(["to nobody"], conversationId: nil, to: "nobody@example.com")
            + sending.enqueue(["to one"], conversationId: 1, to: nil)
        #expect(try flush().report.verdicts(of: queued).map(told) == ["failed notFound", "sent to one"])
        server.down = true
        let later = try sending.enqueue(["later"], conversationId: 1, to: nil)
        #expect(try flush().report.verdicts(of: later).map(told) == ["queued"])
        server.down = false
        server.faults = [.server(status: 401, code: "unauthorized", message: "Sign in.", retryAfter: nil)]
        #expect(try flush().report.verdicts(of: later).map(told) == ["failed credentials"])
    }

    /// Credentials refused while resolving an email: nothing goes, nothing is lost.
    @Test func refusedCredentialsStopTheRunBeforeAnythingIsSent() throws {
        server.down = true
        _ = try send(["to bob"], email: "bob@example.com")
        _ = try send(["to one"], to: 1)
        server.down = false
        server.faults = [.server(status: 401, code: "unauthorized", message: "Sign in.", retryAfter: nil)]
        let outcome = try flush()
        #expect(outcome.report.authRefused)
        #expect(server.stored.isEmpty)
        #expect(try flush().report.sent.count == 2)
    }

    /// A damaged line is named, survives compaction, and only `repair` drops it.
    @Test func aDamagedRecordIsNamedKeptAndOnlyRepairDropsIt() throws {
        server.down = true
        let queued = try send((1...3).map { "m\($0)" }, to: 1)
        let path = profile.outbox.path
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let victim = try #require(lines.firstIndex { $0.contains(queued.ids[1]) && $0.contains("\"queued\"") })
        lines[victim] = lines[victim].replacingOccurrences(of: "\"text\":", with: "\"text\"=")
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        server.down = false

        let outcome = try flush()
        #expect(outcome.report.sent.map(\.entry.localId) == [queued.ids[0], queued.ids[2]])
        #expect(outcome.damaged.map(\.line) == [victim + 1])
        #expect(outcome.damaged.first?.localId == queued.ids[1])
        #expect(outcome.damaged.first?.op == "queued")
        #expect(try Outbox(profile: profile).compact(force: true))
        let kept = try Outbox(profile: profile).read()
        #expect(kept.damaged.count == 1, "compaction keeps the damaged line")
        #expect(kept.damaged.first?.text.contains("m2") == true)
        #expect(try Outbox(profile: profile).repair().map(\.localId) == [queued.ids[1]])
        #expect(try Outbox(profile: profile).read().damaged.isEmpty)
    }

    /// A torn last line is a crash, not damage: not named, and cut off by the next write.
    @Test func aTornTailIsNotDamage() throws {
        server.down = true
        _ = try send(["m1"], to: 1)
        let handle = try #require(FileHandle(forWritingAtPath: profile.outbox.path))
        handle.seekToEndOfFile()
        handle.write(Data("{\"op\":\"queu".utf8))
        handle.closeFile()
        server.down = false
        let outcome = try flush()
        #expect(outcome.damaged.isEmpty)
        #expect(outcome.report.sent.count == 1)
        #expect(try Outbox(profile: profile).read().tornTail == false, "the next write cut it off")
    }

    /// Another delivery holding the lock: the delivery after a command does nothing.
    @Test func theDeliveryAfterACommandSkipsWhileAFlushRuns() throws {
        server.down = true
        _ = try send(["m1"], to: 1)
        server.down = false
        let lock = try #require(try FileLock.tryAcquire(Outbox(profile: profile).flushLockPath))
        let skipped = try sending.deliver(.everything, ignoreBackoff: true, lock: .skipIfBusy)
        #expect(!skipped.ran)
        lock.unlock()
        #expect(try sending.deliver(.everything, ignoreBackoff: true, lock: .skipIfBusy).report.sent.count == 1)
    }
}

/// A NUL is refused with where it is.
struct TextLimitTests {
    @Test func aNulIsRefusedWithItsPosition() {
        #expect(Limits.problem(withText: "before\0after")?.contains("line 1, column 7 (byte offset 6)") == true)
        #expect(Limits.problem(withText: "ok\né\0x")?.contains("line 2, column 2 (byte offset 5)") == true)
        #expect(Limits.problem(withText: "fine") == nil)
    }
}
