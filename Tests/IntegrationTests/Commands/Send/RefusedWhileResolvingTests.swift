import Foundation
import NexusCore
import Testing

/// A session the server refuses, met while `send` resolves an email to its conversation:
/// a credential failure (exit 4, the login hint), not a connection's. The message stays queued.
@Suite(.harness)
struct RefusedWhileResolvingTests {
    @Test func aRevokedSessionWhileResolvingAnEmailIsExit4() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        try alice.revokeTokenKeepingSession()
        let r = try alice.run(["send", bob.email, "hi"])
        #expect(r.code == 4, "\(r.code) \(r.err)")
        #expect(r.err.contains("nexusctl login"), "\(r.err)")
        #expect(!r.err.contains("could not be reached"), "\(r.err)")
        #expect(try alice.outboxEntries().map(\.status) == ["queued"], "nothing is lost")
    }
}
