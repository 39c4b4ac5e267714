import Foundation
import Testing

/// A `tail -f` that lost the network tries again with a backoff that doubles, capped at
/// 2.5 s: however long the network was gone, the tail is back within about 3 s of its return.
@Suite(.harness)
struct ReconnectBackoffTests {
    @Test func aTailIsBackWithinThreeSecondsOfTheNetworksReturn() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "before"]).code == 0)
        let proxy = try FaultProxy(upstreamPort: server.port)
        var far = bob
        far.server = proxy.url
        let (tail, out, err) = try far.spawn(["tail", "-f"])
        defer { if tail.isRunning { tail.terminate() } }
        #expect(out.wait { $0.contains { $0.hasSuffix("Alice: before") } }, "\(out.text) \(err.text)")

        proxy.cut()
        let cutAt = Date()
        #expect(try alice.run(["send", bob.email, "while away"]).code == 0)
        // Gone long enough for the backoff to reach its cap (0.2 + 0.4 + 0.8 + 1.6 s, then
        // the cap), then back just after a try was turned away: when the wait before the
        // next try is at its longest.
        let deadline = Date().addingTimeInterval(40)
        while Date().timeIntervalSince(cutAt) < 6.5 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let seen = proxy.refusedCount
        #expect(seen >= 4, "the tail kept trying while cut (\(seen) tries)")
        while proxy.refusedCount == seen && Date() < deadline { Thread.sleep(forTimeInterval: 0.002) }
        proxy.restore()
        let back = Date()
        #expect(out.wait(timeout: 15) { $0.contains { $0.hasSuffix("Alice: while away") } }, "\(out.text) \(err.text)")
        let took = Date().timeIntervalSince(back)
        #expect(err.text.contains("retrying until the server is back"), "\(err.text)")
        // The cap is 2.5 s; the rest is room for a busy machine (uncapped it was 5 s).
        #expect(took < 3.5, "back \(took) s after the network's return")
    }
}
