import HTTPTypes
import NIOCore
import Synchronization

/// A long poll held by its connection's pipeline (`ParkingHandler`) instead of by a task.
///
/// Answering 10,000 polls held by tasks cost about 55 µs each: every task was resumed, ran
/// back through the middleware and Hummingbird's response writer, and then waited for its
/// connection's next request. A parked poll's request has already been answered
/// with a stand-in that the handler swallowed; when its user's feed moves, one task a
/// group of polls at the same cursor looks again, and the handler writes the real answer.
///
/// Exactly one of `answer` and `cancel` wins; whichever does releases the poll's slot and
/// its presence hold.
final class ParkedPoll: Sendable {
    /// An answer, made once for all the polls that take it: the bytes NIO's HTTP/1 encoder
    /// would write for it as Hummingbird answers (with `date` and `server`).
    struct Answer: Sendable {
        let encoded: ByteBuffer

        /// `headers` without the length, which is the body's.
        init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer) {
            var fields = headers
            fields[.contentLength] = String(body.readableBytes)
            fields[.date] = HTTPDate.now()
            fields[.server] = serverName
            var bytes = ByteBuffer()
            bytes.writeString("HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n")
            for field in fields { bytes.writeString("\(field.name.rawName): \(field.value)\r\n") }
            bytes.writeString("\r\n")
            bytes.writeImmutableBuffer(body)
            encoded = bytes
        }

        /// A 200 with a JSON body.
        static func json(_ body: ByteBuffer) -> Answer {
            Answer(status: .ok, headers: [.contentType: jsonContentType], body: body)
        }
    }

    let token: Int
    let poll: SyncController.Poll
    let controller: SyncController
    /// The connection's loop: the handler lives there, and the poll's timer runs there.
    let loop: any EventLoop
    private let end: @Sendable () -> Void
    private let state = Mutex(State())

    private struct State {
        var answer: Answer?
        var handler: NIOLoopBound<ParkingHandler>?
        var done = false
    }

    private static let nextToken = Atomic<Int>(0)
    /// Polls whose stand-in their handler has not taken yet.
    private static let unclaimed = Mutex<[Int: ParkedPoll]>([:])
    private static let waiting = Atomic<Int>(0)

    init(poll: SyncController.Poll, controller: SyncController, loop: any EventLoop, end: @escaping @Sendable () -> Void) {
        token = Self.nextToken.add(1, ordering: .relaxed).newValue
        self.poll = poll
        self.controller = controller
        self.loop = loop
        self.end = end
        Self.unclaimed.withLock { $0[token] = self }
        Self.waiting.add(1, ordering: .relaxed)
    }

    /// Polls parked and not answered yet (tests).
    static var count: Int { waiting.load(ordering: .relaxed) }

    /// The poll whose stand-in carries `token`, for its handler.
    static func claim(_ token: Int) -> ParkedPoll? {
        unclaimed.withLock { $0.removeValue(forKey: token) }
    }

    /// Answers the polls: each answer is written by its poll's handler, now if the handler
    /// has the poll (one hand-over a loop for them all), or when it takes it (`attach`).
    static func answer(_ answers: [(poll: ParkedPoll, answer: Answer)]) {
        var writes = LoopResumer<Write>()
        for (poll, answer) in answers {
            if let handler = poll.take(answer) { writes.add(Write(poll: poll, answer: answer, handler: handler), on: poll.loop) }
        }
        writes.run { $0.handler.value.write($0.answer, for: $0.poll) }
    }

    private struct Write: Sendable {
        let poll: ParkedPoll
        let answer: Answer
        let handler: NIOLoopBound<ParkingHandler>
    }

    /// The handler to write the answer now; nil when it will take it at `attach`, or when
    /// the poll has already ended.
    private func take(_ answer: Answer) -> NIOLoopBound<ParkingHandler>? {
        let handler = state.withLock { state -> NIOLoopBound<ParkingHandler>?? in
            guard !state.done else { return .none }
            state.done = true
            if state.handler == nil { state.answer = answer }
            return .some(state.handler)
        }
        guard case .some(let handler) = handler else { return nil }
        if handler == nil {
            // Answered before its stand-in reached the handler, which takes the answer then.
            // If its connection closed first, it never will.
            loop.scheduleTask(in: .seconds(10)) { [token] in _ = Self.claim(token) }
        }
        finish()
        return handler
    }

    /// The poll was not parked after all (its feed moved first).
    func abandon() {
        state.withLock { $0.done = true }
        _ = Self.claim(token)
        Self.waiting.subtract(1, ordering: .relaxed)
    }

    /// The connection closed first.
    func cancel() {
        let won = state.withLock { state in
            defer { state.done = true }
            return !state.done
        }
        guard won else { return }
        controller.services.notifier.forget(self)
        _ = Self.claim(token)
        finish()
        HeldPolls.record(.hungUp, poll.credential.hash)
    }

    /// The handler swallowed the stand-in: the answer if it came first, else nil, and the
    /// handler is told when it comes.
    func attach(_ handler: ParkingHandler) -> Answer? {
        let answer = state.withLock { state -> Answer? in
            if let answer = state.answer { return answer }
            state.handler = NIOLoopBound(handler, eventLoop: loop)
            return nil
        }
        if answer == nil { HeldPolls.record(.parked, poll.credential.hash) }
        return answer
    }

    private func finish() {
        Self.waiting.subtract(1, ordering: .relaxed)
        end()
    }

    /// Looks again for the polls that a notification, their timeout or a shutdown woke:
    /// one task for the polls that ask the same thing, as SharedFeedReads would share them.
    static func wake(_ polls: [ParkedPoll]) {
        for group in Dictionary(grouping: polls, by: \.poll.key).values {
            Task { await group[0].controller.look(again: group) }
        }
    }
}
