import Foundation
import NexusCore
import Testing

/// Right after `register`, nobody is online: a one-off command only moves "last seen".
/// Online is someone following now (`tail -f`), and ends with it.
@Suite(.harness)
struct OnlineMeansFollowingTests {
    @Test func registeringIsNotBeingOnlineAndFollowingIs() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        try #require(try bob.run(["send", alice.email, "hi"]).code == 0)

        let users = try alice.run(["users", "--json"]).decode([NexusCore.User].self)
        let seen = try #require(users.first { $0.email == bob.email })
        #expect(seen.online == false, "one command is no open chat")
        #expect(seen.lastSeenAt != nil)
        let text = try alice.run(["users"]).out
        #expect(!text.contains("● online") && text.contains("Last seen just now"), "\(text)")

        let (tail, _, _) = try bob.spawn(["tail", "-f"])
        defer { if tail.isRunning { tail.terminate() } }
        #expect(try waitFor(true, bob.email, seenBy: alice), "online while his tail -f runs")
        tail.terminate()
        tail.waitUntilExit()
        #expect(try waitFor(false, bob.email, seenBy: alice), "offline once it ends")
    }

    /// Polls `users --json` until `viewer` sees `email` in `state`, for up to 10 s.
    private func waitFor(_ state: Bool, _ email: String, seenBy viewer: User) throws -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let users = try viewer.run(["users", "--json"]).decode([NexusCore.User].self)
            if users.first(where: { $0.email == email })?.online == state { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }
}
