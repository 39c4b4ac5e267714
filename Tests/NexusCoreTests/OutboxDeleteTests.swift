import Foundation
import NexusCore
import Testing

/// A delete takes the message's text off this device when it is queued (Outbox+Delete): the
/// sent records that carry it (the send, its edits) leave the outbox in the same atomic
/// rewrite that records the delete, so a delete queued offline already leaves no text behind.
/// Its acknowledgement is appended without an fsync: lost, the delete goes again, once.
// The clock starts when the run queues a test: the limit bounds the whole run (IntegrationTests/TimeLimit.swift).
@Suite(.timeLimit(.minutes(15)))
struct OutboxDeleteTests {
    let profile: Profile
    let server = FakeSendingServer()
    let sending: Sending

    init() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-outbox-delete-\(UUID().uuidString)").path
        profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        sending = Sending(profile: profile, api: server)
    }

    private var outboxText: String { (try? String(contentsOfFile: profile.outbox.path, encoding: .utf8)) ?? "" }

    @Test func aDeleteQueuedOfflineLeavesNoTextInTheOutbox() throws {
        let ref = MessageReference(conversationId: 7, seq: 1)
        _ = try sending.send(["secret one"], conversationId: 7, to: nil, lock: .wait(onBusy: nil))
        _ = try sending.change(.edit, of: ref, text: "secret two", lock: .wait(onBusy: nil))
        #expect(outboxText.contains("secret"))
        server.down = true
        let later = try sending.send(["still queued"], conversationId: 7, to: nil, lock: .wait(onBusy: nil))
        let delete = try sending.change(.delete, of: ref, lock: .wait(onBusy: nil))
        #expect(delete.outcome.report.sent.isEmpty)
        // Queued, not sent, and already the text is gone; what waits is kept, in its order.
        #expect(!outboxText.contains("secret"), "\(outboxText)")
        let open = try Outbox(profile: profile).entries()
        #expect(open.map(\.localId) == [later.queued[0].localId, delete.queued.localId])
        #expect(open.map(\.status) == [.queued, .queued])
        #expect(open[0].text == "still queued")

        server.down = false
        let flushed = try sending.deliver(.everything, ignoreBackoff: true, lock: .wait(onBusy: nil))
        #expect(flushed.report.sent.map(\.entry.localId) == [later.queued[0].localId, delete.queued.localId])
        #expect(server.changes.map(\.kind) == [.edit, .delete])
    }

    @Test func aDeleteWhoseAcknowledgementWasLostGoesAgainOnce() throws {
        let ref = MessageReference(conversationId: 8, seq: 1)
        _ = try sending.send(["secret"], conversationId: 8, to: nil, lock: .wait(onBusy: nil))
        let delete = try sending.change(.delete, of: ref, lock: .wait(onBusy: nil))
        #expect(delete.outcome.report.sent.count == 1)
        // A crash before the unsynced acknowledgement reached the disk: its line is gone.
        var lines = outboxText.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.last?.contains("\"op\":\"sent\"") == true)
        lines.removeLast()
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: profile.outbox.path))
        #expect(try Outbox(profile: profile).entries().map(\.status) == [.queued])

        let again = try sending.deliver(.everything, ignoreBackoff: true, lock: .wait(onBusy: nil))
        #expect(again.report.sent.map(\.entry.localId) == [delete.queued.localId])
        #expect(server.changes.count == 1, "applied once; the second answer is the first's")
        #expect(try Outbox(profile: profile).entries().allSatisfy { $0.status == .sent })
        #expect(!outboxText.contains("secret"))
    }
}
