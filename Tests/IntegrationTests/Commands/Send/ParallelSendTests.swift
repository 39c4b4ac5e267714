import Foundation
import NexusCore
import Testing

/// Many `send`s of one profile started at once: each reports its own message's verdict
/// (sent, exit 0) even when another process delivered it, and none says "queued" with the
/// server up. Real nexusd, real nexusctl processes.
@Suite(.harness)
struct ParallelSendTests {
    @Test func twentyFiveSendsAtOnceAllReportSent() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let direct = String(try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id)
        let sends = try (1...25).map { try Spawned(alice, ["send", direct, "parallel \($0)"]) }
        let codes = sends.map { $0.finish() }
        for (i, s) in sends.enumerated() {
            #expect(codes[i] == 0, "send \(i + 1): exit \(codes[i]) \(s.err)")
            #expect(s.out.hasPrefix("sent "), "send \(i + 1): \(s.out)")
        }
        let texts = try alice.serverMessages().map(\.text).filter { $0.hasPrefix("parallel ") }
        #expect(texts.count == 25 && Set(texts).count == 25, "each delivered exactly once: \(texts.sorted())")
        #expect(try alice.outboxEntries().isEmpty)
    }
}
