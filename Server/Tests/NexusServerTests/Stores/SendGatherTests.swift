import Foundation
import NexusWire
import Synchronization
import Testing

@testable import NexusServer

/// PostgresSendBatcher's gather: clients that each wait for their
/// answer before sending again go in one group, not in cohorts that take turns; an idle
/// or lone sender never waits for it; and a sender that stops costs one wait at most.
@Suite(.timeLimit(.minutes(2)))
struct SendGatherTests {
    /// Each group's size, as written.
    private final class Sizes: Sendable {
        let written = Mutex<[Int]>([])
        var all: [Int] { written.withLock { $0 } }
    }

    /// A batcher over a stand-in for PostgreSQL that takes `commit` a group.
    private static func batcher(gather: Duration, commit: Duration = .milliseconds(2)) -> (PostgresSendBatcher, Sizes) {
        let sizes = Sizes()
        let batcher = PostgresSendBatcher(gather: gather) { messages in
            sizes.written.withLock { $0.append(messages.count) }
            try await Task.sleep(for: commit)
            return messages.map { m in
                .created(Message(id: 1, conversationId: m.conversationId, seq: 1, senderId: m.senderId, localId: m.localId, text: m.text, sentAt: .now()))
            }
        }
        return (batcher, sizes)
    }

    private static func send(_ batcher: PostgresSendBatcher, _ localId: String) async throws {
        _ = try await batcher.send(NewMessage(conversationId: 1, senderId: 1, localId: localId, text: localId))
    }

    /// Four senders, each sending its next once the last is answered, `each` times.
    private static func fourInAClosedLoop(_ batcher: PostgresSendBatcher, each: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for s in 0..<4 {
                group.addTask { for i in 0..<each { try await send(batcher, "s\(s)-\(i)") } }
            }
            try await group.waitForAll()
        }
    }

    /// Four senders in a closed loop, as the bench's four clients a replica. The gather is
    /// long here so that a loaded test machine still sees each sender come back within it;
    /// a gather ends as soon as they have, so its length costs nothing.
    @Test func closedLoopSendersGoInOneGroup() async throws {
        let (batcher, sizes) = Self.batcher(gather: .seconds(2))
        try await Self.fourInAClosedLoop(batcher, each: 30)
        let written = sizes.all
        #expect(written.reduce(0, +) == 120)
        // The first groups form before anything is known about the senders.
        let inFours = written.filter { $0 == 4 }.count * 4
        #expect(inFours >= 108, "groups: \(written)")
    }

    /// One sender, one send at a time: its previous group is its own, so nobody else is
    /// expected and no send waits (each would wait 60 s otherwise). The 50 sends took 3.7 s
    /// beside the rest of the suite on 2 cores, hence the wide bound.
    @Test func aLoneSenderNeverWaits() async throws {
        let (batcher, sizes) = Self.batcher(gather: .seconds(60), commit: .zero)
        let start = ContinuousClock.now
        for i in 0..<50 { try await Self.send(batcher, "lone-\(i)") }
        #expect(ContinuousClock.now - start < .seconds(30))
        #expect(sizes.all == Array(repeating: 1, count: 50))
    }

    /// Three of four senders stop: the first send after them waits for them once, then
    /// only one sender is expected, and the rest go at once. The wait is long, so that two
    /// waits (20 s) stay apart from one (10 s) however slowly a loaded machine runs the
    /// rest: with 0.4 s, 10 sends took 1.03 s on CI, one wait and a slow 0.6 s.
    @Test func aSenderThatStopsCostsOneWaitAtMost() async throws {
        let (batcher, sizes) = Self.batcher(gather: .seconds(10), commit: .zero)
        try await Self.fourInAClosedLoop(batcher, each: 10)
        let start = ContinuousClock.now
        for i in 0..<10 { try await Self.send(batcher, "last-\(i)") }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .seconds(20), "\(elapsed) for 10 sends after the others stopped: groups \(sizes.all)")
        #expect(sizes.all.suffix(9) == Array(repeating: 1, count: 9))
    }
}
