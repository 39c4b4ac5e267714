import Foundation
@testable import NexusCore
import Testing

/// A delivery's claims read the outbox incrementally (Outbox+ClaimView.swift): each decodes
/// only the records appended since the last, and a rewritten file is read whole.
// The clock starts when the run queues a test: the limit bounds the whole run (IntegrationTests/TimeLimit.swift).
@Suite(.timeLimit(.minutes(15)))
struct OutboxClaimViewTests {
    let sending: Sending

    init() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-claim-\(UUID().uuidString)").path
        let profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        sending = Sending(profile: profile, api: FakeSendingServer())
    }

    func claim(_ entries: [OutboxEntry], _ view: Outbox.ClaimView) throws -> (live: [String], dropped: [String]) {
        let claimed = try sending.outbox.claim(entries, view: view)
        claimed.inFlight?.end()
        return (claimed.live.map(\.localId), claimed.dropped.map(\.localId))
    }

    @Test func aDropBetweenClaimsIsReadFromTheAppendedRecordAlone() throws {
        let entries = try sending.enqueue((1...50).map { "message \($0)" }, conversationId: 3, to: nil)
        let ids = entries.map(\.localId)
        let view = Outbox.ClaimView()
        #expect(try claim([entries[0]], view) == ([ids[0]], []))
        #expect(view.recordsDecoded == 50)
        // Another process drops one while this delivery works.
        _ = try sending.outbox.drop([ids[2]])
        #expect(try claim([entries[1], entries[2]], view) == ([ids[1]], [ids[2]]))
        #expect(view.recordsDecoded == 51)
        // Nothing new: nothing decoded.
        #expect(try claim([entries[3]], view) == ([ids[3]], []))
        #expect(view.recordsDecoded == 51)
    }

    @Test func aRewriteBetweenClaimsIsReadWhole() throws {
        let entries = try sending.enqueue((1...5).map { "message \($0)" }, conversationId: 3, to: nil)
        let ids = entries.map(\.localId)
        let view = Outbox.ClaimView()
        #expect(try claim([entries[0]], view) == ([ids[0]], []))
        _ = try sending.outbox.drop([ids[4]])
        #expect(try sending.outbox.compact(force: true))
        #expect(try claim([entries[1], entries[4]], view) == ([ids[1]], [ids[4]]))
        // The rewritten file: the four queued messages and the tombstone, read again.
        #expect(view.recordsDecoded == 5 + 5)
        // The same answers as a claim with a view of its own.
        #expect(try claim(entries, view) == claim(entries, Outbox.ClaimView()))
    }
}
