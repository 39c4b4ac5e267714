import LibC
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A record whose lines have a reader by hand: JSONDecoder's value, or nil when JSONDecoder
/// must decide (see OutboxRecord+Reading.swift).
protocol JSONLineReadable {
    static func read(line: UnsafeBufferPointer<UInt8>) -> Self?
}

/// An append-only file of JSON documents, one a line.
///
/// A crash can leave the last line half-written. Readers skip such a torn line, and the
/// next append cuts it off before writing, so it never stops the program. A complete line
/// that does not decode is damage, not a crash: it is skipped but kept, and handed back
/// with its line number, so the caller can name it rather than lose it in silence.
public struct JSONLinesFile: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    struct ReadResult<T> {
        public var records: [T]
        /// Complete lines that did not decode as a record, in file order.
        public var skipped: [SkippedLine]
        /// True when the file ends in a partial line (a crash during a write).
        public var tornTail: Bool

        var skippedLines: Int { skipped.count }
    }

    /// A complete line that did not decode: where it is, and its bytes as they are.
    struct SkippedLine: Sendable, Equatable {
        /// 1-based, counting every line of the file.
        public var line: Int
        public var bytes: [UInt8]
    }

    func read<T: Decodable>(_ type: T.Type) throws(StoreError) -> ReadResult<T> {
        guard let bytes = try FileSystem.readFile(path) else {
            return ReadResult(records: [], skipped: [], tornTail: false)
        }
        return Self.parse(bytes, as: T.self)
    }

    /// Splits the bytes of a JSON-lines file into records. Never fails: a line that does
    /// not decode goes to `skipped`, and a last line without its newline is a torn tail,
    /// never decoded.
    static func parse<T: Decodable>(_ bytes: [UInt8], as type: T.Type) -> ReadResult<T> {
        let decoder = JSONDecoder()
        let byHand = T.self as? any JSONLineReadable.Type
        var records: [T] = []
        var skipped: [SkippedLine] = []
        var start = 0
        var i = 0
        var line = 0
        let count = bytes.count
        while i < count {
            if bytes[i] == 10 {
                line += 1
                if i > start {
                    let fast = byHand.flatMap { type in bytes[start..<i].withUnsafeBufferPointer { type.read(line: $0) as? T } }
                    if let record = fast ?? (try? decoder.decode(T.self, from: Data(bytes[start..<i]))) {
                        records.append(record)
                    } else {
                        skipped.append(SkippedLine(line: line, bytes: Array(bytes[start..<i])))
                    }
                }
                start = i + 1
            }
            i += 1
        }
        return ReadResult(records: records, skipped: skipped, tornTail: start < count)
    }

    /// Appends the records, each as one line, and by default fsyncs before returning:
    /// when this returns, the records survive a crash or a power cut.
    public func append<T: Encodable>(_ records: [T], sync: Bool = true) throws(StoreError) {
        let bytes = try encodeLines(records)
        let fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        if fd < 0 { throw .errno(path, "can't open") }
        defer { close(fd) }
        try repairTornTail(fd: fd)
        try FileSystem.writeAll(fd: fd, bytes, path: path)
        if sync && fsync(fd) != 0 { throw .errno(path, "can't sync") }
    }

    /// Rewrites the whole file atomically with just these records, after `keeping`: lines
    /// that did not decode, carried over byte for byte so a rewrite never drops them.
    /// `durable: false` skips the fsync, for caches, which the server can refill.
    func replace<T: Encodable>(with records: [T], keeping kept: [SkippedLine] = [], durable: Bool = true) throws(StoreError) {
        var bytes: [UInt8] = []
        for line in kept {
            bytes += line.bytes
            bytes.append(10)
        }
        bytes += try encodeLines(records)
        try FileSystem.writeAtomically(path, bytes, durable: durable)
    }

    /// How a record becomes a line of these files; the message cache's rewrite and the hand
    /// readers' tests write theirs with it too.
    static func lineEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    private func encodeLines<T: Encodable>(_ records: [T]) throws(StoreError) -> [UInt8] {
        let encoder = Self.lineEncoder()
        var bytes: [UInt8] = []
        for record in records {
            do {
                bytes += try encoder.encode(record)
            } catch {
                throw StoreError(path: path, reason: "can't encode a record: \(error)")
            }
            bytes.append(10)
        }
        return bytes
    }

    /// Cuts a partial last line off, so the next record starts on a line of its own.
    private func repairTornTail(fd: Int32) throws(StoreError) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .errno(path, "can't stat") }
        let size = Int(st.st_size)
        if size == 0 { return }
        var last: UInt8 = 0
        guard pread(fd, &last, 1, off_t(size - 1)) == 1 else { throw .errno(path, "can't read") }
        if last == 10 { return }
        // Scan back for the previous newline, a block at a time.
        var end = size
        var cut = 0
        var block = [UInt8](repeating: 0, count: 4096)
        scan: while end > 0 {
            let start = max(0, end - block.count)
            let n = block.withUnsafeMutableBytes { pread(fd, $0.baseAddress, end - start, off_t(start)) }
            if n <= 0 { throw .errno(path, "can't read") }
            for j in stride(from: n - 1, through: 0, by: -1) where block[j] == 10 {
                cut = start + j + 1
                break scan
            }
            end = start
        }
        if ftruncate(fd, off_t(cut)) != 0 { throw .errno(path, "can't repair torn line") }
    }
}
