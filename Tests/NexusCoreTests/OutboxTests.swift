import Testing
import NexusCore
import Foundation

struct OutboxTests {
    @Test func foldsRecordsIntoEntries() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-outbox-\(UUID().uuidString)").path
        let profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        let outbox = Outbox(profile: profile)
        let a = try outbox.enqueue(conversationId: 1, text: "a")
        let b = try outbox.enqueue(conversationId: 1, text: "b")
        let c = try outbox.enqueue(conversationId: nil, to: "bob@example.com", text: "c")
        try outbox.markSent(localId: a.localId, message: Message(id: 9, conversationId: 1, seq: 4, senderId: 1, localId: a.localId, text: "a", sentAt: .now()))
        try outbox.markFailed(localId: b.localId, error: "nope")
        let entries = try outbox.entries()
        #expect(entries.map(\.localId) == [a.localId, b.localId, c.localId])
        #expect(entries.map(\.status) == [.sent, .failed, .queued])
        #expect(entries[0].seq == 4)
        #expect(entries[1].lastError == "nope")
        #expect(entries[2].to == "bob@example.com")
        #expect(FileSystem.mode(of: profile.outbox.path) == 0o600)
    }

    @Test func sessionFileIsPrivateAndRefusedWhenNot() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-session-\(UUID().uuidString)").path
        let profile = Profile(name: "p", home: home)
        let session = Session(server: "http://127.0.0.1:1", token: "nx_t", user: User(id: 1, email: "a@b.c", displayName: "A"), createdAt: .now())
        try profile.saveSession(session)
        #expect(FileSystem.mode(of: profile.sessionPath) == 0o600)
        #expect(try profile.loadSession() == session)
        chmod(profile.sessionPath, 0o644)
        #expect(throws: StoreError.self) { try profile.loadSession() }
    }
}
