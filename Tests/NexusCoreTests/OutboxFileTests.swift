import Testing
@testable import NexusCore
import Foundation

/// The outbox on disk: records folded into entries, compaction, backoff, the session file.
struct OutboxFileTests {
    @Test func foldsRecordsIntoEntries() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-outbox-\(UUID().uuidString)").path
        let profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        let outbox = Outbox(profile: profile)
        let queued = try outbox.enqueue([(1, nil, "a"), (1, nil, "b"), (nil, "bob@example.com", "c"), (2, nil, "d")])
        let (a, b, c, d) = (queued[0], queued[1], queued[2], queued[3])
        let later = Timestamp(milliseconds: Timestamp.now().milliseconds + 60_000)
        try outbox.append([
            OutboxRecord(op: .sent, localId: a.localId, at: .now(), conversationId: 1, messageId: 9, seq: 4),
            OutboxRecord(op: .failed, localId: b.localId, at: .now(), error: "nope"),
            OutboxRecord(op: .deferred, localId: d.localId, at: .now(), error: "down", nextAttemptAt: later),
            OutboxRecord(op: .failed, localId: a.localId, at: .now(), error: "late"),
        ])
        let entries = try outbox.entries()
        #expect(entries.map(\.localId) == [a.localId, b.localId, c.localId, d.localId])
        #expect(entries.map(\.status) == [.sent, .failed, .queued, .queued])
        #expect(entries[0].seq == 4, "a late failure does not undo an acknowledgement")
        #expect(entries[1].lastError == "nope")
        #expect(entries[2].to == "bob@example.com")
        #expect(entries[3].nextAttemptAt == later)
        #expect(!entries[3].isDue(at: .now()))
        #expect(entries[2].isDue(at: .now()))
        #expect(FileSystem.mode(of: profile.outbox.path) == 0o600)

        try outbox.append([OutboxRecord(op: .retry, localId: b.localId, at: .now())])
        #expect(try outbox.entries()[1].status == .queued)
    }

    @Test func compactionKeepsOnlyOpenMessagesAndTheirState() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-compact-\(UUID().uuidString)").path
        let profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        let outbox = Outbox(profile: profile)
        let entries = try outbox.enqueue((0..<100).map { (Int64(1), nil, "m\($0)") })
        let later = Timestamp(milliseconds: Timestamp.now().milliseconds + 60_000)
        try outbox.append(entries[0..<97].map { OutboxRecord(op: .sent, localId: $0.localId, at: .now(), messageId: 1, seq: 1) })
        try outbox.append([
            OutboxRecord(op: .failed, localId: entries[97].localId, at: .now(), error: "rejected"),
            OutboxRecord(op: .deferred, localId: entries[98].localId, at: .now(), error: "down", nextAttemptAt: later),
            OutboxRecord(op: .deferred, localId: entries[98].localId, at: .now(), error: "down", nextAttemptAt: later),
        ])
        let before = try outbox.entries().filter { $0.status != .sent }
        #expect(try outbox.compact())
        let after = try outbox.read()
        #expect(after.entries == before)
        #expect(after.recordCount == 5)
        #expect(try !outbox.compact(), "nothing settled is left to drop")
    }

    /// Found by fuzzing: a huge attempt count in a damaged file must not overflow the fold.
    @Test func hugeAttemptCountsAreClamped() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-attempts-\(UUID().uuidString)").path
        let profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        let outbox = Outbox(profile: profile)
        var record = OutboxRecord(op: .queued, localId: "a", at: .now(), conversationId: 1, text: "x")
        record.attempts = Int.max
        try outbox.append([record, OutboxRecord(op: .deferred, localId: "a", at: .now(), error: "down", nextAttemptAt: .now())])
        #expect(try outbox.entries().first?.attempts == 1_000_000)
    }

    @Test func backoffDoublesUpToFiveMinutes() {
        #expect((1...12).map { Sending.backoff(afterAttempts: $0) } == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300])
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
