import Logging
import Synchronization
import Testing

@testable import NexusServer

/// nexusd's log handler writes StreamLogHandler's lines, and makes its metadata into text
/// only for a line it writes (not on every request).
@Suite struct LogLinesTests {
    private final class Lines: TextOutputStream, Sendable {
        private let written = Mutex<[String]>([])
        func write(_ string: String) { written.withLock { $0.append(string) } }
        /// Each line without its timestamp, which is the first word.
        var all: [String] { written.withLock { $0 }.map { String($0.drop { $0 != " " }.dropFirst()) } }
    }

    /// A metadata value that counts how often it is made into text.
    private final class Counted: CustomStringConvertible, Sendable {
        private let count = Atomic(0)
        var description: String {
            count.add(1, ordering: .relaxed)
            return "42"
        }
        var made: Int { count.load(ordering: .relaxed) }
    }

    private func loggers() -> (lines: Logger, linesOut: Lines, stream: Logger, streamOut: Lines) {
        let linesOut = Lines(), streamOut = Lines()
        let lines = Logger(label: "nexusd") { LogLines(StreamLogHandler(label: $0, stream: linesOut, metadataProvider: nil)) }
        let stream = Logger(label: "nexusd") { StreamLogHandler(label: $0, stream: streamOut, metadataProvider: nil) }
        return (lines, linesOut, stream, streamOut)
    }

    @Test func aKeySetIsMadeIntoTextOnlyForALineWritten() {
        var (logger, out, _, _) = loggers()
        let counted = Counted()
        logger[metadataKey: "request"] = .stringConvertible(counted)
        logger[metadataKey: "other"] = "x"
        logger.debug("below the level")
        #expect(counted.made == 0)
        #expect(out.all.isEmpty)
        logger.info("written")
        #expect(counted.made == 1)
        #expect(out.all == ["info nexusd: other=x request=42 [NexusServerTests] written\n"])
    }

    @Test func theLinesAreStreamLogHandlers() {
        var (lines, linesOut, stream, streamOut) = loggers()
        func both(_ body: (inout Logger) -> Void) {
            body(&lines)
            body(&stream)
        }
        both { $0.info("bare") }
        both { $0.warning("with its own", metadata: ["b": "2", "a": "1"]) }
        both { $0[metadataKey: "k"] = "logger's" }
        both { $0.error("the line's wins", metadata: ["k": "line's"]) }
        both { $0.notice("the logger's alone") }
        both { $0.logLevel = .trace }
        both { $0.trace("now written") }
        #expect(linesOut.all == streamOut.all)
        #expect(linesOut.all.count == 5)
        #expect(linesOut.all[2].contains("k=line's"))
    }
}
