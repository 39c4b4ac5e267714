import LibC
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every message the client has seen, per conversation, for offline reading and for
/// answering history without the network.
///
/// A conversation's cache is a folder of segments: JSON-lines files, one message a line,
/// each holding a run of consecutive seqs in order and named by its first seq (zero-padded,
/// so names sort by seq). Newer messages are appended to the segment they continue; a page
/// fetched from further back starts a segment of its own. So no write rewrites a file, a
/// reader finds any seq by a binary search inside one file, and the newest page is read
/// from the end of the last file: a reader never loads the whole cache.
///
/// It is a cache: writes are not fsynced, and a damaged line only costs a gap, which the
/// next online read fills from the server.
public struct MessageCache: Sendable {
    public let directory: String

    public init(profile: Profile) {
        self.directory = profile.directory + "/cache"
    }

    func folder(_ conversationId: Int64) -> String { directory + "/\(conversationId)" }

    struct Segment {
        var first: Int64
        var last: Int64
        var path: String
        var size: Int
        /// When its first message was sent, where reading it told (`prune` skips segments that start after its cutoff).
        var firstSentAt: Timestamp?
    }

    // MARK: Writing

    /// Adds messages, ignoring the ones already cached. Any order, any conversations.
    public func insert(_ messages: [Message]) throws(StoreError) {
        var byConversation: [Int64: [Message]] = [:]
        for m in messages { byConversation[m.conversationId, default: []].append(m) }
        for (conversationId, list) in byConversation { try insert(list, conversationId: conversationId) }
    }

    private func insert(_ messages: [Message], conversationId: Int64) throws(StoreError) {
        var seen = Set<Int64>()
        let sorted = messages.sorted { $0.seq < $1.seq }.filter { $0.seq > 0 && seen.insert($0.seq).inserted }
        if try appendAfterNewest(sorted, conversationId: conversationId) { return }
        // The segments the messages can be in, the one each run may continue, and the one
        // that may follow the last run: not every segment (MessageCache+Range.swift).
        var segments = try self.segments(conversationId, reaching: (sorted[0].seq - 1)...(sorted.last!.seq + 1))
        let fresh = sorted.filter { m in !segments.contains { $0.first <= m.seq && m.seq <= $0.last } }
        guard !fresh.isEmpty else { return }
        try FileSystem.makeDirectories(folder(conversationId))
        var joined = false
        for run in runs(fresh) {
            if let i = segments.firstIndex(where: { $0.last == run[0].seq - 1 }) {
                try JSONLinesFile(path: segments[i].path).append(run, sync: false)
                segments[i].last = run.last!.seq
            } else {
                let path = folder(conversationId) + "/" + Self.name(run[0].seq)
                try JSONLinesFile(path: path).append(run, sync: false)
                segments.append(Segment(first: run[0].seq, last: run.last!.seq, path: path, size: 0))
            }
            joined = joined || segments.contains { $0.first == run.last!.seq + 1 }
        }
        // Only a run that now touches the next segment makes a chain to merge; a profile whose
        // segments have gaps between them (its own sends into a busy group) has none.
        if joined && segmentNames(conversationId).count > 32 { try compact(conversationId) }
    }

    /// Splits messages sorted by seq into runs of consecutive seqs.
    func runs(_ sorted: [Message]) -> [[Message]] {
        var out: [[Message]] = []
        for m in sorted {
            if let last = out.last?.last, last.seq + 1 == m.seq { out[out.count - 1].append(m) } else { out.append([m]) }
        }
        return out
    }

    static func name(_ seq: Int64) -> String {
        let digits = String(seq)
        return String(repeating: "0", count: max(0, 12 - digits.count)) + digits + ".jsonl"
    }

    /// Merges chains of small adjacent segments (paging back makes one per page) into one
    /// file each. Large segments are left alone, so every message is copied a bounded
    /// number of times however far back one pages.
    private func compact(_ conversationId: Int64) throws(StoreError) {
        let small = 256 * 1024
        var chain: [Segment] = []
        func flush() throws(StoreError) {
            defer { chain.removeAll() }
            guard chain.count > 1 else { return }
            var bytes: [UInt8] = []
            for s in chain { bytes += try FileSystem.readFile(s.path) ?? [] }
            try FileSystem.writeAtomically(chain[0].path, bytes)
            for s in chain.dropFirst() { unlink(s.path) }
        }
        for s in try segments(conversationId) {
            if s.size < small, let previous = chain.last, previous.last + 1 == s.first {
                chain.append(s)
            } else {
                try flush()
                if s.size < small { chain = [s] }
            }
        }
        try flush()
    }

    // MARK: Reading

    /// The segments of a conversation in seq order. Reading each one's last line is cheap;
    /// a segment whose lines turn out not to be consecutive is split where they break.
    func segments(_ conversationId: Int64) throws(StoreError) -> [Segment] {
        try segments(conversationId, named: segmentNames(conversationId).map(\.name))
    }

    /// A conversation's segment files with the seq each one's name says it starts at, in
    /// seq order; nothing is read.
    func segmentNames(_ conversationId: Int64) -> [(start: Int64, name: String)] {
        FileSystem.list(folder(conversationId)).compactMap { name in
            name.hasSuffix(".jsonl") ? Int64(name.dropLast(6)).map { (start: $0, name: name) } : nil
        }.sorted { $0.start < $1.start }
    }

    /// The segments of the files `names`, as `segments` reads them.
    func segments(_ conversationId: Int64, named names: [String]) throws(StoreError) -> [Segment] {
        let dir = folder(conversationId)
        var segments: [Segment] = []
        for name in names {
            let path = dir + "/" + name
            let file = try SegmentFile(path: path)
            defer { file.close() }
            guard let first = file.firstMessage(), let last = file.lastMessage() else {
                unlink(path)  // nothing readable in it
                continue
            }
            // The name says where the run starts: a first line that disagrees means damage.
            if Int64(name.dropLast(6)) != first.seq || last.seq < first.seq {
                segments += try repair(path, conversationId: conversationId)
                continue
            }
            segments.append(Segment(first: first.seq, last: last.seq, path: path, size: file.size, firstSentAt: first.sentAt))
        }
        return segments.sorted { $0.first < $1.first }
    }

    /// Rewrites a damaged segment as segments of the consecutive runs it still holds.
    private func repair(_ path: String, conversationId: Int64) throws(StoreError) -> [Segment] {
        let messages = JSONLinesFile.parse(try FileSystem.readFile(path) ?? [], as: Message.self).records
        unlink(path)
        var seen = Set<Int64>()
        var out: [Segment] = []
        for run in runs(messages.sorted { $0.seq < $1.seq }.filter { seen.insert($0.seq).inserted }) {
            let target = folder(conversationId) + "/" + Self.name(run[0].seq)
            try JSONLinesFile(path: target).replace(with: run)
            out.append(Segment(first: run[0].seq, last: run.last!.seq, path: target, size: 0))
        }
        return out
    }

    /// The cached messages with seq in `range`, in order; those missing are simply absent.
    /// A segment found to skip or repeat seqs inside the range (a damaged line) is split
    /// into its consecutive runs, so the hole shows as a gap that the server can fill.
    public func messages(_ conversationId: Int64, seqs range: ClosedRange<Int64>) throws(StoreError) -> [Message] {
        var out: [Message] = []
        var repaired = false
        for s in try segments(conversationId, reaching: range) where s.last >= range.lowerBound && s.first <= range.upperBound {
            let from = max(s.first, range.lowerBound), to = min(s.last, range.upperBound)
            let file = try SegmentFile(path: s.path)
            let found = file.read(first: s.first, from: from, to: to)
            file.close()
            if found.count < Int(to - from + 1) && !repaired {
                _ = try repair(s.path, conversationId: conversationId)
                repaired = true
            }
            out += found
        }
        if repaired { return try messages(conversationId, seqs: range) }
        // Segments never overlap when written here; dedupe anyway, for files copied in by hand.
        var seen = Set<Int64>()
        return out.filter { seen.insert($0.seq).inserted }.sorted { $0.seq < $1.seq }
    }

    /// What the cache can say about a page of history.
    public struct Page: Sendable {
        /// Oldest first.
        public var messages: [Message]
        /// Every seq of the page is cached: it can be answered without the network.
        public var complete: Bool
        /// Messages exist before the first one here.
        public var hasMore: Bool
    }

    /// Up to `limit` messages before seq `before` (or the newest cached ones).
    public func page(_ conversationId: Int64, before: Int64?, limit: Int) throws(StoreError) -> Page {
        // Only the newest page needs the cache's last seq; a page before a seq does not.
        let top: Int64
        if let before { top = before - 1 } else { top = try lastSeq(conversationId) }
        guard top >= 1, limit > 0 else { return Page(messages: [], complete: true, hasMore: false) }
        let bottom = max(1, top - Int64(limit) + 1)
        let messages = try self.messages(conversationId, seqs: bottom...top)
        return Page(messages: messages, complete: messages.count == Int(top - bottom + 1), hasMore: (messages.first?.seq ?? bottom) > 1)
    }

    /// The conversations with anything cached.
    public func conversations() -> [Int64] {
        FileSystem.list(directory, directoriesOnly: true).compactMap { Int64($0) }.sorted()
    }
}

/// Random access into one segment: its lines hold consecutive seqs, so the line of any
/// seq is found by a binary search over byte offsets, reading a few KiB per probe.
struct SegmentFile {
    let path: String
    let fd: Int32
    let size: Int
    /// The end of the last complete line: a torn tail after it is ignored.
    let end: Int

    init(path: String) throws(StoreError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw StoreError(path: path, reason: "can't open: \(String(cString: strerror(errno)))") }
        self.fd = fd
        var st = stat()
        fstat(fd, &st)
        self.size = Int(st.st_size)
        var end = size
        // Back up over a torn last line.
        var byte: UInt8 = 0
        while end > 0 {
            _ = pread(fd, &byte, 1, off_t(end - 1))
            if byte == 10 { break }
            end -= 1
        }
        self.end = end
    }

    func close() {
        _ = systemClose(fd)
    }

    private func bytes(_ from: Int, _ to: Int) -> [UInt8] {
        guard to > from else { return [] }
        var out = [UInt8](repeating: 0, count: to - from)
        let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress, to - from, off_t(from)) }
        if n < to - from { out.removeLast(to - from - max(n, 0)) }
        return out
    }

    /// The start of the line that contains `offset`.
    private func lineStart(_ offset: Int) -> Int {
        var pos = offset
        while pos > 0 {
            let from = max(0, pos - 4096)
            let chunk = bytes(from, pos)
            if let nl = chunk.lastIndex(of: 10) { return from + nl + 1 }
            pos = from
        }
        return 0
    }

    /// The line starting at `start` (without its newline) and where the next one starts.
    private func line(at start: Int) -> ([UInt8], Int) {
        var out: [UInt8] = []
        var pos = start
        while pos < end {
            let chunk = bytes(pos, min(end, pos + 4096))
            if let nl = chunk.firstIndex(of: 10) {
                out += chunk[..<nl]
                return (out, pos + nl + 1)
            }
            out += chunk
            pos += chunk.count
        }
        return (out, end)
    }

    private func decode(_ line: [UInt8]) -> Message? {
        try? JSONDecoder().decode(Message.self, from: Data(line))
    }

    func firstMessage() -> Message? {
        end > 0 ? decode(line(at: 0).0) : nil
    }

    func lastMessage() -> Message? {
        end > 0 ? decode(line(at: lineStart(end - 1)).0) : nil
    }

    /// The offset of the line holding `seq`, by binary search; nil when it is not found
    /// (a damaged file).
    private func offset(of seq: Int64) -> Int? {
        var lo = 0, hi = end
        while lo < hi {
            let start = lineStart(lo + (hi - lo) / 2)
            let (text, next) = line(at: start)
            guard let m = decode(text) else { return nil }
            if m.seq == seq { return start }
            if m.seq < seq { lo = next } else { hi = start }
        }
        return nil
    }

    /// The messages with seq from...to, stopping early at a line that is not the next seq.
    func read(first: Int64, from: Int64, to: Int64) -> [Message] {
        guard let start = from == first ? 0 : offset(of: from) else { return [] }
        var out: [Message] = []
        var pos = start
        var expected = from
        while expected <= to, pos < end {
            let (text, next) = line(at: pos)
            guard let m = decode(text), m.seq == expected else { break }
            out.append(m)
            expected += 1
            pos = next
        }
        return out
    }
}
