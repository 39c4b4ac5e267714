#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `search` without the server: a scan of every cached message, with the query and
/// filters the server applies, answered in the same pages. Files are read a chunk at a
/// time, so memory stays flat however large the cache; a line is decoded only when its
/// bytes may hold every required word (see `LinePrefilter`).
public struct LocalSearch {
    public let cache: MessageCache

    public init(profile: Profile) {
        self.cache = MessageCache(profile: profile)
    }

    /// `senderIds` are the `from` filter's people as the cache knows them; nil for anyone.
    public func search(_ query: SearchQuery, filter: SearchFilter, senderIds: Set<Int64>?) throws(StoreError) -> SearchResponse {
        let wanted = Set(filter.conversations)
        let prefilter = LinePrefilter(query)
        var found: [Message] = []
        var beforeId = Int64.max
        if case .before(let id) = filter.page, !filter.rank { beforeId = id }
        let decoder = JSONDecoder()
        for conversationId in cache.conversations() where wanted.isEmpty || wanted.contains(conversationId) {
            for segment in try cache.segments(conversationId) {
                try Self.lines(of: segment.path) { line in
                    guard prefilter.mayMatch(line), let m = try? decoder.decode(Message.self, from: Data(buffer: line)) else { return }
                    guard m.id < beforeId, senderIds?.contains(m.senderId) ?? true else { return }
                    if let after = filter.after, m.sentAt < after { return }
                    if let before = filter.before, m.sentAt >= before { return }
                    guard SearchMatch(query, text: m.text).matches else { return }
                    found.append(m)
                }
            }
        }
        // A message cached twice (a copied-in file) counts once.
        var seen = Set<Int64>()
        found = found.sorted { $0.id > $1.id }.filter { seen.insert($0.id).inserted }
        if filter.rank {
            var skip = 0
            if case .skip(let n) = filter.page { skip = n }
            return SearchResults.ranked(
                Array(found.prefix(SearchFilter.rankedCandidates)), query: query, skip: skip, limit: filter.limit)
        }
        return SearchResults.newest(Array(found.prefix(filter.limit + 1)), query: query, limit: filter.limit)
    }

    /// Calls `body` with each complete line of the file, reading 1 MiB at a time into one
    /// buffer (grown only for a longer line), lines found with memchr.
    static func lines(of path: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) throws(StoreError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return }  // gone since it was listed (a prune): nothing to find
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var filled = 0
        while true {
            if filled == buffer.count { buffer += repeatElement(0, count: buffer.count) }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw StoreError(path: path, reason: "can't read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            filled += n
            let consumed = buffer.withUnsafeBufferPointer { all -> Int in
                let base = all.baseAddress!
                var start = 0
                while start < filled, let nl = memchr(base + start, 10, filled - start) {
                    let end = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(nl))
                    body(UnsafeBufferPointer(start: base + start, count: end - start))
                    start = end + 1
                }
                return start
            }
            if consumed > 0 {
                buffer.withUnsafeMutableBytes { _ = memmove($0.baseAddress!, $0.baseAddress! + consumed, filled - consumed) }
                filled -= consumed
            }
        }
        // A torn last line without its newline is not a message yet.
    }
}

/// A cheap test of a raw cache line before it is decoded. A line of plain ASCII folds
/// by ASCII lower-casing alone, so each required word's ASCII tokens must appear in it,
/// any case, as whole words (a prefix term's last token at a word's start only); a line
/// with other bytes (accents, escapes) may fold to anything and is always decoded.
struct LinePrefilter {
    private let needles: [(bytes: [UInt8], wholeWord: Bool, startOfWord: Bool)]

    init(_ query: SearchQuery) {
        var needles: [(bytes: [UInt8], wholeWord: Bool, startOfWord: Bool)] = []
        for term in query.required {
            if let raw = term.substring {
                if raw.utf8.allSatisfy({ $0 < 0x80 }) { needles.append((Array(raw.utf8), false, false)) }
                continue
            }
            for (i, token) in term.tokens.enumerated() where token.utf8.allSatisfy({ $0 < 0x80 }) {
                let last = i == term.tokens.count - 1
                needles.append((Array(token.utf8), !(last && term.prefix), true))
            }
        }
        self.needles = needles
    }

    func mayMatch(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !needles.isEmpty else { return true }
        guard let text = Self.text(of: line) else { return true }
        for b in text where b >= 0x80 || b == UInt8(ascii: "\\") { return true }
        return needles.allSatisfy { Self.contains(text, $0.bytes, wholeWord: $0.wholeWord, startOfWord: $0.startOfWord) }
    }

    private static let textKey = Array(#""text":""#.utf8)

    /// The raw bytes of the line's `text` value, up to its first quote: a third of the line,
    /// and the only part a search matches. The first `"text":"` is that key: no other field of
    /// a message or of the objects inside it is named `text`, and inside a string a quote is
    /// escaped. A value with an escaped quote ends early here, but it holds a backslash, which
    /// sends the line to the decoder. Nil (decode it) when the key is missing.
    static func text(of line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        guard let base = line.baseAddress else { return nil }
        let quoteByte = Int32(UInt8(ascii: "\""))
        var at = 0
        while at + textKey.count <= line.count {
            guard let quote = memchr(base + at, quoteByte, line.count - at) else { return nil }
            at = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(quote))
            guard at + textKey.count <= line.count else { return nil }
            if memcmp(base + at, textKey, textKey.count) == 0 {
                let start = at + textKey.count
                guard let end = memchr(base + start, quoteByte, line.count - start) else { return nil }
                return UnsafeBufferPointer(rebasing: line[start..<UnsafeRawPointer(base).distance(to: UnsafeRawPointer(end))])
            }
            at += 1
        }
        return nil
    }

    /// `needle` is lower case; the line's ASCII letters are compared lower-cased.
    static func contains(_ line: UnsafeBufferPointer<UInt8>, _ needle: [UInt8], wholeWord: Bool, startOfWord: Bool) -> Bool {
        guard let first = needle.first, line.count >= needle.count else { return needle.isEmpty }
        let last = line.count - needle.count
        var i = 0
        while i <= last {
            if lower(line[i]) == first && (!startOfWord || i == 0 || !isWordByte(line[i - 1])) {
                var k = 1
                while k < needle.count && lower(line[i + k]) == needle[k] { k += 1 }
                if k == needle.count && (!wholeWord || i + k == line.count || !isWordByte(line[i + k])) { return true }
            }
            i += 1
        }
        return false
    }

    @inline(__always) static func lower(_ b: UInt8) -> UInt8 { b &- 65 < 26 ? b | 0x20 : b }
    @inline(__always) static func isWordByte(_ b: UInt8) -> Bool { lower(b) &- 97 < 26 || b &- 48 < 10 }
}
