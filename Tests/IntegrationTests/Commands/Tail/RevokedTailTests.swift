import Foundation
import Testing

/// A `tail -f` whose token stops working ends at once with exit 4, instead of printing
/// what is written after until its long poll runs out (docs/protocol.md, "Held long
/// polls"). Each test waits for nexusd's "long poll held" line (--log-level debug), so
/// the revocation finds the tail's poll held.
@Suite(.harness)
struct RevokedTailTests {
    /// bob's `tail -f` of everything, through `via`, once its long poll is held there.
    private static func heldTail(_ bob: User, via server: TestServer) throws -> (Process, LineCollector, LineCollector) {
        let tail = try bob.withServer(server.url).spawn(["tail", "-f", "--json"])
        #expect(tail.1.wait { $0.contains { $0.contains("hello") } }, "\(tail.2.text)")
        #expect(server.log.wait { $0.contains { $0.contains("long poll held") } }, "\(server.log.text.suffix(2000))")
        return tail
    }

    /// The tail ends with exit 4 well before its 25 s poll would, having printed nothing
    /// that alice writes afterwards.
    private static func expectEnded(_ tail: (Process, LineCollector, LineCollector), alice: User, bob: User) throws {
        let (process, out, err) = tail
        let ended = ends(process, within: 5)
        #expect(ended && process.terminationStatus == 4, "the tail still runs, or ended otherwise: \(err.text)")
        #expect(try alice.run(["send", bob.email, "written after"]).code == 0)
        if !ended { process.terminate(); process.waitUntilExit() }
        #expect(!out.text.contains("written after"))
    }

    @Test func aTailWhoseSessionIsLoggedOutEnds() throws {
        let server = try TestServer(logLevel: "debug")
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "hello"]).code == 0)
        let tail = try Self.heldTail(bob, via: server)
        #expect(try bob.run(["logout"]).code == 0)
        try Self.expectEnded(tail, alice: alice, bob: bob)
    }

    @Test func aTailOfARevokedReadTokenEnds() throws {
        let server = try TestServer(logLevel: "debug")
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "hello"]).code == 0)
        let created = try bob.run(["token", "create", "reader", "--scope", "read"])
        #expect(created.code == 0, "\(created.err)")
        var script = User(copying: bob, home: try makeTempDir("home-script"))
        script.extraEnvironment["NEXUS_TOKEN"] = created.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let tail = try Self.heldTail(script, via: server)
        #expect(try bob.run(["token", "revoke", "reader"]).code == 0)
        try Self.expectEnded(tail, alice: alice, bob: bob)
    }

    /// Logged out through replica A, bob's tail through replica B ends by A's note.
    @Test(.enabled(if: Backend.postgres != nil, "needs PostgreSQL: replicas share its database"))
    func aTailThroughAnotherReplicaEndsWhenItsSessionIsLoggedOut() throws {
        let a = try TestServer()
        let b = try TestServer(database: a.databasePath, logLevel: "debug")
        defer { a.stop(); b.stop() }
        let (alice, bob) = try a.pair()
        #expect(try alice.run(["send", bob.email, "hello"]).code == 0)
        let tail = try Self.heldTail(bob, via: b)
        #expect(try bob.run(["logout"]).code == 0)
        try Self.expectEnded(tail, alice: alice, bob: bob)
    }
}
