import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import NexusServer

/// Woken polls are resumed on their connections' loops, where their answers
/// are written.
@Suite(.timeLimit(.minutes(1)))
struct LoopResumerTests {
    /// Which loop each item was resumed on: "a", "b", or "none" (a thread that is no loop).
    private final class Record: Sendable {
        private let entries = Mutex<[Int: String]>([:])
        func note(_ item: Int, _ a: any EventLoop, _ b: any EventLoop) {
            let place = a.inEventLoop ? "a" : b.inEventLoop ? "b" : "none"
            entries.withLock { $0[item] = place }
        }
        var places: [Int: String] { entries.withLock { $0 } }
    }

    private static func withLoops(_ body: (any EventLoop, any EventLoop) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let a = group.next()
        let b = group.next()
        precondition(a !== b)
        do {
            try await body(a, b)
        } catch {
            try await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }

    @Test func eachItemIsResumedOnItsOwnLoop() async throws {
        try await Self.withLoops { a, b in
            var resumer = LoopResumer<Int>()
            resumer.add(1, on: a)
            resumer.add(2, on: b)
            resumer.add(3, on: a)
            resumer.add(4, on: nil)
            let record = Record()
            resumer.run { record.note($0, a, b) }
            // Each loop runs its tasks in order: once these ran, the resumes before them did.
            try await a.submit {}.get()
            try await b.submit {}.get()
            #expect(record.places == [1: "a", 2: "b", 3: "a", 4: "none"])
        }
    }

    @Test func theCallingLoopsItemsAreResumedInPlace() async throws {
        try await Self.withLoops { a, b in
            let record = Record()
            // What loop a had resumed when `run` returned there: its own items, not b's,
            // which wait for b (held busy until then).
            let release = Mutex(false)
            b.execute { while !release.withLock({ $0 }) {} }
            let atReturn = try await a.submit { () -> [Int: String] in
                var resumer = LoopResumer<Int>()
                resumer.add(1, on: a)
                resumer.add(2, on: b)
                resumer.add(3, on: a)
                resumer.run { record.note($0, a, b) }
                return record.places
            }.get()
            release.withLock { $0 = true }
            try await b.submit {}.get()
            #expect(atReturn == [1: "a", 3: "a"])
            #expect(record.places == [1: "a", 2: "b", 3: "a"])
        }
    }
}
