import Foundation
@testable import NexusCore
import Testing

/// The outbox's management in the core: the retry limit counts time from the
/// first failed try and survives a rewrite; a retry starts it afresh; a dropped message's
/// tombstone survives a rewrite for a day; the cap refuses new messages only.
final class OutboxManagementTests {
    let profile: Profile
    let server = FakeSendingServer()
    var sending: Sending
    /// The delivery clock, moved by hand.
    let clock = Clock()

    final class Clock: @unchecked Sendable {
        var now = Timestamp(milliseconds: 1_800_000_000_000)
    }

    init() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-manage-\(UUID().uuidString)").path
        profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        sending = Sending(profile: profile, api: server)
        let clock = clock
        sending.now = { clock.now }
        sending.retryLimitSeconds = 60
    }

    func flush() throws -> DeliveryReport {
        try sending.deliver(.everything, ignoreBackoff: true, lock: .wait(onBusy: nil)).report
    }

    @Test func theRetryLimitCountsFromTheFirstFailedTryThroughARewrite() throws {
        server.down = true
        let queued = try sending.enqueue(["patience"], conversationId: 3, to: nil)
        _ = try flush()
        let first = try #require(try sending.outbox.entries().first)
        #expect(first.tryingSince == clock.now)
        let since = clock.now

        clock.now = Timestamp(milliseconds: since.milliseconds + 30_000)
        _ = try flush()
        try sending.outbox.compact(force: true)
        #expect(try sending.outbox.entries().first?.tryingSince == since, "a rewrite restarted the clock")
        #expect(try sending.outbox.entries().first?.status == .queued)

        clock.now = Timestamp(milliseconds: since.milliseconds + 60_000)
        let report = try flush()
        #expect(report.failed.map(\.localId) == queued.map(\.localId))
        let failed = try #require(try sending.outbox.entries().first)
        #expect(failed.status == .failed)
        #expect(failed.lastError?.hasPrefix("Retry limit exceeded: tried for 1m.") == true)

        // A retry starts the clock afresh, also through a rewrite.
        _ = try sending.retry(nil)
        try sending.outbox.compact(force: true)
        #expect(try sending.outbox.entries().first?.tryingSince == nil)
        clock.now = Timestamp(milliseconds: since.milliseconds + 61_000)
        #expect(try flush().failed.isEmpty)
        #expect(try sending.outbox.entries().first?.status == .queued)
        server.down = false
        #expect(try flush().sent.count == 1)
    }

    @Test func aTombstoneSurvivesARewriteForADay() throws {
        server.down = true
        let queued = try sending.enqueue(["keep", "drop"], conversationId: 3, to: nil)
        let outcomes = try Sending.drop([queued[1].localId], from: sending.outbox)
        #expect(outcomes.count == 1)
        try sending.outbox.compact(force: true)
        let contents = try sending.outbox.read()
        #expect(contents.entries.map(\.localId) == [queued[0].localId])
        #expect(contents.dropped[queued[1].localId] != nil)
        // A send that queued it and waited for the lock meanwhile learns it was dropped.
        server.down = false
        let report = try sending.deliver(.conversationsOf([queued[1].localId]), ignoreBackoff: true, lock: .wait(onBusy: nil)).report
        #expect(report.dropped == [queued[1].localId])
        #expect(try flush().sent.map(\.entry.localId) == [queued[0].localId])
        #expect(server.stored.map(\.text) == ["keep"])

        // A tombstone older than a day goes with the next rewrite.
        let old = """
            {"at":"2020-01-01T00:00:00.000Z","localId":"long-gone","op":"dropped"}

            """
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: profile.outbox.path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(old.utf8))
        try handle.close()
        #expect(try sending.outbox.read().dropped["long-gone"] != nil)
        try sending.outbox.compact(force: true)
        #expect(try sending.outbox.read().dropped["long-gone"] == nil)
        #expect(try sending.outbox.read().dropped[queued[1].localId] != nil)
    }

    @Test func aFullOutboxRefusesNewMessagesOnly() throws {
        server.down = true
        sending.outbox.limit = 2
        let queued = try sending.enqueue(["one", "two"], conversationId: 3, to: nil)
        #expect(throws: StoreError.self) { _ = try self.sending.enqueue(["three"], conversationId: 3, to: nil) }
        do {
            _ = try sending.enqueue(["three"], conversationId: 3, to: nil)
        } catch {
            #expect(error.queueFull == StoreError.QueueFull(open: 2, limit: 2))
        }
        // Verdicts still go in: a full outbox still records what became of its messages.
        _ = try flush()
        #expect(try sending.outbox.entries().map(\.localId) == queued.map(\.localId))
        #expect(try sending.outbox.entries().allSatisfy { $0.attempts == 1 })
    }
}
