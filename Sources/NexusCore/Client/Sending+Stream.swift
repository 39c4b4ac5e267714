#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Sending {
    /// How a stream of `send --each-line` ended.
    public enum StreamEnd: Sendable, Equatable {
        /// The input ended; one last delivery was tried.
        case endOfInput
        /// A held-off SIGINT or SIGTERM: every line read is queued, none is delivered more.
        case interrupted(signal: Int32)
        /// This line can't be a message; nothing that arrived with it was queued.
        case refused(line: Int, problem: String)
        /// The outbox is full (`Outbox.limit`): nothing from this line on was queued.
        case full(line: Int, StoreError)
        /// A message of the stream failed for good, or the server refused the credentials:
        /// trying the next lines would only fail them too.
        case failed
    }

    public struct StreamResult {
        public var end: StreamEnd
        /// The lines queued, in order.
        public var queued = 0
        /// The stream's messages not yet sent, in order, as the last delivery left them.
        public var stillQueued: [DeliveryVerdict] = []
        /// The stream's message whose failure stopped it (`.failed`), if one did rather than
        /// the credentials.
        public var failed: DeliveryVerdict?
        /// The last delivery's report: why messages still wait, or what failed.
        public var lastReport = DeliveryReport()
        /// Earlier queued messages of the conversation that went out with the stream's.
        public var earlierDelivered = 0
    }

    /// `send --each-line` on a pipe that may never end: each line is queued (synced to
    /// disk) as it arrives, lines that arrive together in one append, and delivered at
    /// once through the same API (so one kept-alive connection) with every earlier queued
    /// message of the conversation, by the ordering rule. While the server can't be
    /// reached, lines keep being read and queued, and delivery is tried again after
    /// 0.25 s, doubling up to 2 s. `check` vets each line before anything of its arrival is
    /// queued. `queued` is told each line with its message once it is in the outbox.
    /// `settled` is told each delivery's outcome with the verdicts on the stream's messages
    /// that went out of the queue in it (sent, failed or dropped), in order.
    public func stream(
        _ input: inout LineStream, conversationId: Int64?, to email: String?, lock: LockPolicy,
        check: (String) -> String?, queued: ([(line: LineStream.Line, entry: OutboxEntry)]) -> Void = { _ in },
        settled: (Outcome, [DeliveryVerdict]) -> Void
    ) throws(StoreError) -> StreamResult {
        var result = StreamResult(end: .endOfInput)
        var conversationId = conversationId
        var pending: [OutboxEntry] = []
        var retryAt: Double?
        var delay = 0.25

        /// One delivery of every pending message; false when the stream must stop.
        func deliverPending() throws(StoreError) -> Bool {
            guard !pending.isEmpty else { return true }
            let ids = Set(pending.map(\.localId))
            let outcome = try deliver(.conversationsOf(ids), ignoreBackoff: true, lock: lock)
            let report = outcome.report
            result.lastReport = report
            var done: [DeliveryVerdict] = []
            var left: [OutboxEntry] = []
            for (e, verdict) in zip(pending, report.verdicts(of: pending)) {
                switch verdict.kind {
                case .queued: left.append(e)
                case .sent(let m):
                    if conversationId == nil { conversationId = m.conversationId }
                    done.append(verdict)
                case .failed:
                    if result.failed == nil { result.failed = verdict }
                    done.append(verdict)
                case .dropped, .unchanged, .applied: done.append(verdict)
                }
            }
            result.earlierDelivered += report.sent.count(where: { !ids.contains($0.entry.localId) })
            pending = left
            settled(outcome, done)
            if report.authRefused || result.failed != nil {
                result.end = .failed
                return false
            }
            if report.stopReason != nil {
                retryAt = Self.clock() + delay
                delay = min(delay * 2, 2)
            } else {
                retryAt = nil
                delay = 0.25
            }
            return true
        }

        func enqueue(_ lines: [LineStream.Line]) throws(StoreError) {
            guard !lines.isEmpty else { return }
            let entries = try self.enqueue(lines.map(\.text), conversationId: conversationId, to: email)
            pending += entries
            result.queued += lines.count
            queued(Array(zip(lines, entries)).map { (line: $0.0, entry: $0.1) })
        }

        TerminationGuard.install()
        reading: while true {
            let timeout: Int32 = pending.isEmpty ? -1 : Int32(max(0, ((retryAt ?? 0) - Self.clock()) * 1000).rounded(.up))
            let event = timeout == 0 ? .timeout : input.next(timeoutMs: timeout)
            switch event {
            case .lines(let lines), .end(let lines):
                for line in lines {
                    guard let problem = check(line.text) else { continue }
                    // Nothing of this arrival is queued: no half of a paste goes out.
                    _ = input.takePartial()
                    TerminationGuard.release()
                    result.end = .refused(line: line.number, problem: problem)
                    break reading
                }
                do {
                    try enqueue(lines)
                } catch {
                    guard error.queueFull != nil, let first = lines.first else { throw error }
                    _ = input.takePartial()
                    TerminationGuard.release()
                    result.end = .full(line: first.number, error)
                    break reading
                }
                if !input.holdsUnqueuedBytes { TerminationGuard.release() }
                if case .end = event { break reading }
                if retryAt.map({ Self.clock() >= $0 }) ?? true, !(try deliverPending()) { break reading }
            case .timeout:
                if !(try deliverPending()) { break reading }
            case .interrupted:
                try enqueue(input.takePartial())
                result.end = .interrupted(signal: TerminationGuard.pendingSignal)
                result.stillQueued = result.lastReport.verdicts(of: pending)
                return result
            }
        }
        if result.end == .endOfInput { _ = try deliverPending() }
        result.stillQueued = result.lastReport.verdicts(of: pending)
        return result
    }

    /// Seconds on a clock that only goes forward.
    static func clock() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
