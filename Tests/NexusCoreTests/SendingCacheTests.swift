import Foundation
import NexusCore
import Testing

/// What a delivery sends is kept in the local cache by the core, so every command that
/// delivers (send, queue flush, retry, the delivery after others) reads it back offline.
struct SendingCacheTests {
    @Test func sentMessagesAreCachedAndACacheFailureIsReportedNotThrown() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-sendcache-\(UUID().uuidString)").path
        let profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        let sending = Sending(profile: profile, api: FakeSendingServer())
        _ = try sending.enqueue(["one", "two"], conversationId: 4, to: nil)
        let outcome = try sending.deliver(.everything, ignoreBackoff: true, lock: .wait(onBusy: nil))
        #expect(outcome.cacheProblems.isEmpty)
        #expect(try MessageCache(profile: profile).newest(10, conversationId: 4).map(\.text) == ["one", "two"])

        // A file where the cache's folder should be: the next message is sent all the same.
        let cache = MessageCache(profile: profile).directory
        try FileManager.default.removeItem(atPath: cache)
        try Data().write(to: URL(fileURLWithPath: cache))
        _ = try sending.enqueue(["three"], conversationId: 4, to: nil)
        let next = try sending.deliver(.everything, ignoreBackoff: true, lock: .wait(onBusy: nil))
        #expect(next.report.sent.map(\.message.text) == ["three"])
        #expect(next.cacheProblems.count == 1)
    }
}
