import Foundation
import ServiceLifecycle
import Testing

@testable import NexusServer

/// A graceful shutdown answers the long polls nexusd holds at once, instead of waiting out
/// their `wait`: one handler for all of them (FeedNotifier.shutDownWithServer).
@Suite(.timeLimit(.minutes(1)))
struct GracefulShutdownTests {
    init() { HeldPolls.turnOn() }

    /// Both ways a poll is held: in its task (its request asks to close the connection) and
    /// in its connection (ParkedPoll).
    @Test(arguments: [true, false])
    func heldPollsAreAnsweredAtOnce(closing: Bool) async throws {
        try await withRawServer(limits: ServerLimits()) { port, group in
            let token = try await RawConnection.register(port: port)
            let polls = try (0..<3).map { _ in try RawConnection(port: port) }
            for poll in polls {
                poll.send("GET /v1/sync?after=0&wait=30 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                    + (closing ? "Connection: close\r\n" : "") + "\r\n")
            }
            // All three held, a parked one by its connection, which then holds the shutdown's
            // "close when idle" for it.
            await HeldPolls.wait(for: Tokens.hash(String(token)), count: polls.count, closing ? .began : .parked)
            let started = Date()
            await group.triggerGracefulShutdown()
            for poll in polls {
                let answered = try #require(await poll.readUntilClosed(timeout: 20), "held through the shutdown")
                #expect(answered.hasPrefix("HTTP/1.1 200"))
            }
            let took = Date().timeIntervalSince(started)
            // Far below the 30 s wait, with room for a busy machine.
            #expect(took < 10, "answered \(took) s after the shutdown began; their wait was 30 s")
        }
    }
}
