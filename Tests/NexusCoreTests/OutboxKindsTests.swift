import Foundation
@testable import NexusCore
import Testing

/// The outbox's kinds of change: files written before kinds existed still load
/// as sends; every kind keeps what it needs through a compaction; and the one ordering
/// rule holds across kinds: a change never overtakes what its conversation queued first.
struct OutboxKindsTests {
    let profile: Profile
    let server = FakeSendingServer()
    let sending: Sending

    init() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-kinds-\(UUID().uuidString)").path
        profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        sending = Sending(profile: profile, api: server)
    }

    @Test func anOutboxFromBeforeKindsLoadsAsSends() throws {
        // Two lines exactly as nexusctl wrote them before this change.
        let old = """
            {"at":"2026-11-20T10:00:00.000Z","conversationId":3,"localId":"old-1","op":"queued","text":"hello"}
            {"at":"2026-11-20T10:00:01.000Z","localId":"old-2","op":"queued","text":"hi bob","to":"bob@example.com"}

            """
        try Data(old.utf8).write(to: URL(fileURLWithPath: profile.outbox.path))
        let entries = try Outbox(profile: profile).entries()
        #expect(entries.map(\.localId) == ["old-1", "old-2"])
        #expect(entries.map(\.kind) == [.send, .send])
        #expect(entries.map(\.text) == ["hello", "hi bob"])
        #expect(entries[1].to == "bob@example.com")
    }

    @Test func everyKindSurvivesCompaction() throws {
        let outbox = Outbox(profile: profile)
        let ref = MessageReference(conversationId: 4, seq: 9)
        try outbox.enqueue([(4, nil, "a reply")], replyTo: 9)
        try outbox.enqueue(change: .edit, of: ref, text: "new text")
        try outbox.enqueue(change: .delete, of: ref)
        try outbox.enqueue(change: .react, of: ref, emoji: "👍")
        try outbox.enqueue(change: .unreact, of: ref, emoji: "👍")
        let before = try outbox.entries()
        try outbox.compact(force: true)
        let after = try outbox.entries()
        #expect(after == before)
        #expect(after.map(\.kind) == [.send, .edit, .delete, .react, .unreact])
        #expect(after[0].replyTo == 9)
        #expect(after[1].text == "new text" && after[1].targetReference == ref)
        #expect(after[3].emoji == "👍")
    }

    @Test func aChangeWaitsBehindWhatItsConversationQueuedFirst() throws {
        // Message 1 exists on the server; then, offline, a send and an edit of message 1.
        _ = try sending.send(["first"], conversationId: 5, to: nil, lock: .wait(onBusy: nil))
        server.down = true
        let queuedSend = try sending.send(["second"], conversationId: 5, to: nil, lock: .wait(onBusy: nil))
        #expect(queuedSend.outcome.report.sent.isEmpty)
        let edit = try sending.change(.edit, of: MessageReference(conversationId: 5, seq: 1), text: "first, edited", lock: .wait(onBusy: nil))
        #expect(edit.outcome.report.sent.isEmpty)
        #expect(server.changes.isEmpty)
        server.down = false
        let flushed = try sending.deliver(.everything, ignoreBackoff: true, lock: .wait(onBusy: nil))
        #expect(flushed.report.sent.map(\.entry.localId) == [queuedSend.queued[0].localId, edit.queued.localId])
        #expect(server.messages(in: 5).map(\.text) == ["first, edited", "second"])
        #expect(server.changes.map(\.localId) == [edit.queued.localId])
        // Sent once: a second flush has nothing left to send.
        #expect(try sending.deliver(.everything, ignoreBackoff: true, lock: .wait(onBusy: nil)).report.sent.isEmpty)
        #expect(server.changes.count == 1)
    }
}
