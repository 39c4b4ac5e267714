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
        try search(query, filter: filter, senderIds: senderIds, halvesFrom: Self.halvesFromBytes)
    }

    /// `halvesFrom`: the cached bytes from which the files are read in two halves at once.
    func search(_ query: SearchQuery, filter: SearchFilter, senderIds: Set<Int64>?, halvesFrom: Int) throws(StoreError) -> SearchResponse {
        let wanted = Set(filter.conversations)
        var files: [(path: String, size: Int)] = []
        for conversationId in cache.conversations() where wanted.isEmpty || wanted.contains(conversationId) {
            files += try cache.segments(conversationId).map { ($0.path, $0.size) }
        }
        let prefilter = LinePrefilter(query)
        let beforeId: Int64 = if case .before(let id) = filter.page, !filter.rank { id } else { .max }
        func scan(_ share: [FilePart]) -> Result<[Message], StoreError> {
            var found: [Message] = []
            let decoder = JSONDecoder()
            do {
                for part in share {
                    try Self.lines(of: part.path, from: part.from, to: part.to) { line in
                        guard prefilter.mayMatch(line), let m = try? decoder.decode(Message.self, from: Data(buffer: line)) else { return }
                        guard m.id < beforeId, senderIds?.contains(m.senderId) ?? true else { return }
                        if let after = filter.after, m.sentAt < after { return }
                        if let before = filter.before, m.sentAt >= before { return }
                        guard SearchMatch(query, text: m.text).matches else { return }
                        found.append(m)
                    }
                }
            } catch {
                return .failure(error)
            }
            return .success(found)
        }
        // A large cache is scanned in two halves, the second on a thread of its own.
        let shares = Self.halves(of: files, from: halvesFrom)
        let second = shares.count > 1 ? BackgroundWork.start { scan(shares[1]) } : nil
        let first = scan(shares[0])
        let rest = shares.count < 2 ? .success([]) : second?.join() ?? scan(shares[1])
        var found = try first.get() + rest.get()
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
}

/// A cheap test of a raw cache line before it is decoded. A line of plain ASCII folds
/// by ASCII lower-casing alone, so each required word's ASCII tokens must appear in it,
/// any case, as whole words (a prefix term's last token at a word's start only); a line
/// with other bytes (accents, escapes) may fold to anything and is always decoded.
struct LinePrefilter {
    /// An ASCII token is letters and digits (SearchText.tokens), so in ASCII text it is
    /// found as one of the text's words: equal to it, or its start for a prefix term.
    private let words: [(bytes: [UInt8], prefix: Bool)]
    /// Terms matched as a substring (SearchText.needsSubstring), anywhere in the text.
    private let substrings: [[UInt8]]

    init(_ query: SearchQuery) {
        var words: [(bytes: [UInt8], prefix: Bool)] = []
        var substrings: [[UInt8]] = []
        for term in query.required {
            if let raw = term.substring {
                if raw.utf8.allSatisfy({ $0 < 0x80 }) { substrings.append(Array(raw.utf8)) }
                continue
            }
            for (i, token) in term.tokens.enumerated() where token.utf8.allSatisfy({ $0 < 0x80 }) {
                words.append((Array(token.utf8), i == term.tokens.count - 1 && term.prefix))
            }
        }
        // Past 64 words (a mask's bits), the rest are left to the decoder.
        self.words = Array(words.prefix(64))
        self.substrings = substrings
    }

    func mayMatch(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !words.isEmpty || !substrings.isEmpty else { return true }
        guard let text = Self.text(of: line) else { return true }
        // One pass over the text: its words, each compared with the words still missing,
        // and any byte that sends the line to the decoder.
        var missing: UInt64 = words.count == 64 ? .max : (1 << UInt64(words.count)) - 1
        var i = 0
        while i < text.count {
            let b = text[i]
            if b >= 0x80 || b == UInt8(ascii: "\\") { return true }
            guard Self.isWordByte(b) else {
                i += 1
                continue
            }
            let start = i
            repeat { i += 1 } while i < text.count && Self.isWordByte(text[i])
            if missing != 0 { missing &= ~found(UnsafeBufferPointer(rebasing: text[start..<i]), among: missing) }
        }
        return missing == 0 && substrings.allSatisfy { Self.contains(text, $0) }
    }

    /// The bits of the words in `among` that `word` is (or starts, for a prefix).
    @inline(__always)
    private func found(_ word: UnsafeBufferPointer<UInt8>, among: UInt64) -> UInt64 {
        var bits: UInt64 = 0
        for (k, w) in words.enumerated() where among & (1 << UInt64(k)) != 0 {
            guard w.prefix ? word.count >= w.bytes.count : word.count == w.bytes.count else { continue }
            var j = 0
            while j < w.bytes.count && Self.lower(word[j]) == w.bytes[j] { j += 1 }
            if j == w.bytes.count { bits |= 1 << UInt64(k) }
        }
        return bits
    }

    /// `"text":"` as an eight-byte load from memory gives it (a literal: a `static let` is
    /// checked for its first use at every call).
    private static var textKey: UInt64 { UInt64(littleEndian: 0x223A_2274_7865_7422) }

    /// The raw bytes of the line's `text` value, up to its first quote: a third of the line,
    /// and the only part a search matches. The first `"text":"` is that key: no other field of
    /// a message or of the objects inside it is named `text`, and inside a string a quote is
    /// escaped. A value with an escaped quote ends early here, but it holds a backslash, which
    /// sends the line to the decoder. Nil (decode it) when the key is missing.
    static func text(of line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        guard let base = line.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        let quoteByte = Int32(UInt8(ascii: "\""))
        var at = 0
        // Each quote's eight bytes compared as one word (a call to memcmp at each quote was a
        // quarter of the scan).
        while at + 8 <= line.count, let quote = memchr(base + at, quoteByte, line.count - 8 + 1 - at) {
            at = raw.distance(to: UnsafeRawPointer(quote))
            if raw.loadUnaligned(fromByteOffset: at, as: UInt64.self) == textKey {
                let start = at + 8
                guard let end = memchr(base + start, quoteByte, line.count - start) else { return nil }
                return UnsafeBufferPointer(rebasing: line[start..<raw.distance(to: UnsafeRawPointer(end))])
            }
            at += 1
        }
        return nil
    }

    /// `needle` is lower case; the line's ASCII letters are compared lower-cased.
    static func contains(_ line: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, line.count >= needle.count else { return needle.isEmpty }
        for i in 0...(line.count - needle.count) where lower(line[i]) == first {
            var k = 1
            while k < needle.count && lower(line[i + k]) == needle[k] { k += 1 }
            if k == needle.count { return true }
        }
        return false
    }

    @inline(__always) static func lower(_ b: UInt8) -> UInt8 { b &- 65 < 26 ? b | 0x20 : b }
    @inline(__always) static func isWordByte(_ b: UInt8) -> Bool { lower(b) &- 97 < 26 || b &- 48 < 10 }
}
