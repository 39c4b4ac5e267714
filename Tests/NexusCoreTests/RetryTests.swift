import Foundation
import NexusCore
import Testing

/// `retry` and `queue` in the core: only failed messages are made due again, by name or
/// all of them, and the listing hides what was sent.
struct RetryTests {
    let profile: Profile
    let server = FakeSendingServer()
    let sending: Sending

    init() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-retry-\(UUID().uuidString)").path
        profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        sending = Sending(profile: profile, api: server)
    }

    /// One message refused for good (failed), one sent, one queued while the server is down.
    func prepare() throws -> (failed: String, sent: String, queued: String) {
        let failed = try sending.enqueue(["refused"], conversationId: 1, to: nil)[0].localId
        server.faults = [.server(status: 400, code: "bad_request", message: "No.", retryAfter: nil)]
        _ = try sending.deliver(.everything, ignoreBackoff: true, lock: .wait(onBusy: nil))
        let sent = try sending.enqueue(["fine"], conversationId: 2, to: nil)[0].localId
        _ = try sending.deliver(.everything, ignoreBackoff: true, lock: .wait(onBusy: nil))
        let queued = try sending.enqueue(["later"], conversationId: 3, to: nil)[0].localId
        server.down = true
        _ = try sending.deliver(.everything, ignoreBackoff: true, lock: .wait(onBusy: nil))
        server.down = false
        return (failed, sent, queued)
    }

    @Test func onlyFailedMessagesAreRetried() throws {
        let ids = try prepare()
        #expect(try Outbox(profile: profile).queue().entries.map(\.localId) == [ids.failed, ids.queued])
        do {
            _ = try sending.retry([ids.queued])
            Issue.record("a queued message was retried")
        } catch {
            guard case .notFailed(ids.queued, .queued) = error else { Issue.record("got \(error)"); return }
        }
        do {
            _ = try sending.retry(["nope"])
            Issue.record("an unknown localId was retried")
        } catch {
            guard case .notInOutbox("nope") = error else { Issue.record("got \(error)"); return }
        }
        #expect(try sending.retry(nil).map(\.localId) == [ids.failed])
        let report = try sending.deliver(.everything, ignoreBackoff: true, lock: .wait(onBusy: nil)).report
        #expect(Set(report.sent.map(\.entry.localId)) == [ids.failed, ids.queued])
        #expect(try sending.retry(nil).isEmpty)
        #expect(try Outbox(profile: profile).queue().entries.isEmpty)
    }
}
