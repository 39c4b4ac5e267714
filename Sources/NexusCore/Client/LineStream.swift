#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lines of a pipe (stdin) as they arrive, for `send --each-line`: a reader that may
/// never see the end (`tail -f log | nexusctl send …`) gets each line the moment its
/// newline does, and every line already waiting in the pipe at once, so that lines
/// written together are queued and sent together.
///
/// From the first byte read until it is in the outbox, SIGINT and SIGTERM are held off
/// (`TerminationGuard.hold`): the caller releases the hold once it has queued what `next`
/// returned and no partial line is left.
public struct LineStream {
    public struct Line: Sendable, Equatable {
        public var text: String
        /// 1-based, counting blank lines, for error messages.
        public var number: Int
        /// It had bytes that are not valid UTF-8, each bad sequence now U+FFFD.
        public var replacedBytes = false

        public init(text: String, number: Int, replacedBytes: Bool = false) {
            self.text = text
            self.number = number
            self.replacedBytes = replacedBytes
        }
    }

    public enum Event: Equatable {
        /// Every complete line that was waiting (blank ones left out; may be empty when only
        /// part of a line came).
        case lines([Line])
        /// End of input, with the last line if it had no newline.
        case end([Line])
        /// Nothing came within the timeout.
        case timeout
        /// A held-off signal arrived (`TerminationGuard.pendingSignal`).
        case interrupted
    }

    let fd: Int32
    /// Read bytes of a line whose newline has not come yet.
    private(set) var partial: [UInt8] = []
    private var number = 0
    /// What one `next` reads at most, so a pipe that never pauses still gets its lines sent.
    let maxBatchBytes: Int

    public init(fd: Int32, maxBatchBytes: Int = 4 * 1024 * 1024) {
        self.fd = fd
        self.maxBatchBytes = maxBatchBytes
    }

    /// True while bytes read are not yet a line handed out (and so not yet queued).
    var holdsUnqueuedBytes: Bool { !partial.isEmpty }

    /// Waits up to `timeoutMs` (-1: for ever) for input, then reads all that is waiting.
    public mutating func next(timeoutMs: Int32) -> Event {
        var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&waiting, 1, timeoutMs)
        if ready < 0 {
            return errno == EINTR && TerminationGuard.pendingSignal != 0 ? .interrupted : .lines([])
        }
        if ready == 0 { return .timeout }
        TerminationGuard.hold()
        var chunk = [UInt8](repeating: 0, count: 65536)
        var total = 0
        var ended = false
        while total < maxBatchBytes {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                ended = true
                break
            }
            partial += chunk[0..<n]
            total += n
            // More only if it is there now: a pipe's writer may pause for ever.
            var more = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&more, 1, 0) == 1 else { break }
        }
        var lines: [Line] = []
        var start = 0
        while let nl = partial[start...].firstIndex(of: 10) {
            append(partial[start..<nl], to: &lines)
            start = nl + 1
        }
        partial.removeFirst(start)
        if ended {
            if !partial.isEmpty { append(partial[...], to: &lines) }
            partial = []
            return .end(lines)
        }
        return .lines(lines)
    }

    /// What is left of a line cut short by a signal, as a line of its own.
    mutating func takePartial() -> [Line] {
        defer { partial = [] }
        var lines: [Line] = []
        if !partial.isEmpty { append(partial[...], to: &lines) }
        return lines
    }

    private mutating func append(_ bytes: ArraySlice<UInt8>, to lines: inout [Line]) {
        number += 1
        var bytes = bytes
        if bytes.last == 13 { bytes.removeLast() }
        let text = String(decoding: bytes, as: UTF8.self)
        if !text.allSatisfy(\.isWhitespace) {
            lines.append(Line(text: text, number: number, replacedBytes: !InvalidUTF8.lines(in: bytes).isEmpty))
        }
    }
}
