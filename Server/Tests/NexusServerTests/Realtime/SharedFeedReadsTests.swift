import Foundation
import NexusWire
import Synchronization
import Testing

@testable import NexusServer

/// Polls woken together share one feed read (ten thousand live tails), and the
/// sharing keeps the feed's promises: nothing missed, nothing twice.
@Suite(.timeLimit(.minutes(5)))
struct SharedFeedReadsTests {
    init() { HeldPolls.turnOn() }

    private static let key = SharedFeedReads.Key(viewer: 7, after: 10, conversationId: nil, limit: 500)

    final class Counter: Sendable {
        private let value = Mutex(0)
        func next() -> Int { value.withLock { $0 += 1; return $0 } }
        var count: Int { value.withLock { $0 } }
    }

    /// A read that takes `delay` and returns one event whose id counts the reads made.
    private static func countingRead(_ reads: Counter, delay: Duration) -> @Sendable () async throws -> SharedFeedReads.Page {
        {
            let n = reads.next()
            try await Task.sleep(for: delay)
            return .init(events: [SyncEvent(id: Int64(n), type: .message, conversationId: 1)], body: nil)
        }
    }

    private static func canonical(_ json: String) throws -> String {
        let value = try JSONSerialization.jsonObject(with: Data(json.utf8))
        return String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func pollsAskingTogetherShareOneRead() async throws {
        let shared = SharedFeedReads()
        let reads = Counter()
        let read = Self.countingRead(reads, delay: .milliseconds(300))
        let pages = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<10 { group.addTask { try await shared.page(Self.key, version: 3, read: read).events[0].id } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(reads.count == 1, "10 polls at one cursor and version made \(reads.count) reads")
        #expect(pages == Array(repeating: 1, count: 10))
        #expect(shared.count == 0, "a read is forgotten once answered")
    }

    /// A read that holds its page until `open`, so that a test knows it is in flight.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if state.open { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    /// A read whose event's id counts the reads made; it says when it begins, and answers
    /// once `gate` opens (nil: at once).
    private static func read(
        _ reads: Counter, gate: Gate?, begun: AsyncStream<Int>.Continuation? = nil
    ) -> @Sendable () async throws -> SharedFeedReads.Page {
        {
            let n = reads.next()
            begun?.yield(n)
            await gate?.wait()
            return .init(events: [SyncEvent(id: Int64(n), type: .message, conversationId: 1)], body: nil)
        }
    }

    /// A poll woken by a newer notification must not take a read begun before it: that
    /// read may have missed the commit that woke it, and the poll would sleep through it.
    /// Each read in flight is held until the test opens its gate; a poll that takes it
    /// opens the gate itself, so that a wrong take fails the test instead of hanging it.
    @Test func aPollWithANewerVersionDoesNotJoinAnOlderRead() async throws {
        let shared = SharedFeedReads()
        let reads = Counter()
        let (begun, beginning) = AsyncStream.makeStream(of: Int.self)
        var reading = begun.makeAsyncIterator()
        let first = Gate()
        let older = Task { try await shared.page(Self.key, version: 3, read: Self.read(reads, gate: first, begun: beginning)).events[0].id }
        #expect(await reading.next() == 1, "the older read is in flight")
        let newer = try await shared.page(Self.key, version: 4, taken: { first.open() }, read: Self.read(reads, gate: nil)).events[0].id
        #expect(newer == 2, "the newer poll took the older read's page")
        first.open()
        #expect(try await older.value == 1)
        #expect(reads.count == 2)
        // An older poll may take a newer read: it saw everything the older one would have.
        let second = Gate()
        let late = Task { try await shared.page(Self.key, version: 5, read: Self.read(reads, gate: second, begun: beginning)).events[0].id }
        #expect(await reading.next() == 3, "the newer read is in flight")
        let joined = try await shared.page(Self.key, version: 4, taken: { second.open() }, read: Self.read(reads, gate: nil)).events[0].id
        #expect(joined == 3, "the older poll made a read of its own")
        second.open()
        #expect(try await late.value == 3)
        #expect(reads.count == 3)
        #expect(shared.count == 0)
    }

    @Test func aFailedReadFailsItsPollsAndIsNotKept() async throws {
        struct Broken: Error {}
        let shared = SharedFeedReads()
        await #expect(throws: Broken.self) { try await shared.page(Self.key, version: 1) { throw Broken() } }
        let page = try await shared.page(Self.key, version: 1) { .init(events: [], body: nil) }
        #expect(page.events.isEmpty && shared.count == 0)
    }

    /// Several tails of one user at one cursor: one message answers every one of them with
    /// the same bytes, the bytes a poll of its own gets.
    @Test func tailsAtOneCursorGetTheSameAnswer() async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            let start = try await api.sync(bob.token, query: "after=0")
            let query = "/v1/sync?after=\(start.cursor)&check=\(start.cursorCheck!)&wait=10"
            async let bodies = withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask { String(buffer: try await api.call(.get, query, token: bob.token).body) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            await HeldPolls.wait(for: Tokens.hash(bob.token), count: 8)
            try await api.send(alice.token, to: conversation, localId: "to-all-tails", text: "hello tails")
            let answers = try await bodies
            #expect(answers.count == 8 && Set(answers).count == 1, "\(Set(answers))")
            // A poll of its own after the message: the same answer (JSONEncoder orders keys
            // as it likes, so compared as JSON, in one canonical form).
            let alone = String(buffer: try await api.call(.get, query, token: bob.token).body)
            #expect(try Self.canonical(answers[0]) == Self.canonical(alone))
            let decoded = try JSONDecoder().decode(SyncResponse.self, from: Data(answers[0].utf8))
            #expect(decoded.events.compactMap(\.message?.localId) == ["to-all-tails"])
            #expect(decoded.cursor == decoded.events.last?.id && decoded.cursorCheck == decoded.events.last?.check)
        }
    }

    /// Four tails of one user follow the feed while 60 messages are sent at once: each sees
    /// every message, in order, once.
    @Test func concurrentTailsDuringConcurrentSendsMissNothing() async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            let cursor = try await api.sync(bob.token, query: "after=0").cursor
            async let sent: Void = withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<60 {
                    let token = i.isMultiple(of: 2) ? alice.token : bob.token
                    group.addTask { try await api.send(token, to: conversation, localId: "tails-race-\(i)") }
                }
                try await group.waitForAll()
            }
            let seen = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var seqs: [Int64] = []
                        var after = cursor
                        let deadline = ContinuousClock.now + .seconds(30)
                        while seqs.count < 60, ContinuousClock.now < deadline {
                            let page = try await api.sync(bob.token, query: "after=\(after)&wait=2")
                            seqs += page.events.compactMap(\.message?.seq)
                            after = page.cursor
                        }
                        return seqs
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            try await sent
            for tail in seen { #expect(tail == Array(1...60)) }
        }
    }
}
