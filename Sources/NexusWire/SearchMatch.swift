#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A query applied to one message's text: whether it matches (offline, the cache's only
/// index), where (for the highlighted snippet) and how well (for `--rank`). The server
/// scores with this too, from the text alone: a score built on index statistics would
/// count messages in conversations the caller is not in.
public struct SearchMatch: Sendable, Equatable {
    /// Scalar offsets of each match in the text, sorted, without overlaps.
    public var highlights: [Span]
    public var score: Double
    /// Every required term is there and no excluded one is.
    public var matches: Bool

    public struct Span: Sendable, Equatable {
        public var start: Int
        public var end: Int
        public init(_ start: Int, _ end: Int) {
            self.start = start
            self.end = end
        }
    }

    public init(_ query: SearchQuery, text: String) {
        let tokens = SearchText.tokens(text)
        var spans: [Span] = []
        var matches = true
        var score = 0.0
        for term in query.terms {
            let found = Self.occurrences(of: term, tokens: tokens, text: text)
            if term.excluded {
                if !found.isEmpty { matches = false }
                continue
            }
            if found.isEmpty { matches = false }
            spans += found
            score += log(1 + Double(found.count)) * Double(max(term.tokens.count, 1))
        }
        self.highlights = Self.merged(spans)
        self.score = (score / (1 + log(1 + Double(tokens.count))) * 10_000).rounded() / 10_000
        self.matches = matches
    }

    static func occurrences(of term: SearchQuery.Term, tokens: [SearchText.Token], text: String) -> [Span] {
        if let raw = term.substring { return SearchText.occurrences(of: raw, in: text).map { Span($0.start, $0.end) } }
        let n = term.tokens.count
        guard n > 0, tokens.count >= n else { return [] }
        var out: [Span] = []
        for i in 0...(tokens.count - n) {
            var ok = true
            for k in 0..<n {
                let t = tokens[i + k].folded, q = term.tokens[k]
                if k == n - 1 && term.prefix ? !t.hasPrefix(q) : t != q {
                    ok = false
                    break
                }
            }
            if ok { out.append(Span(tokens[i].start, tokens[i + n - 1].end)) }
        }
        return out
    }

    static func merged(_ spans: [Span]) -> [Span] {
        var out: [Span] = []
        for s in spans.sorted(by: { ($0.start, $0.end) < ($1.start, $1.end) }) {
            if let last = out.last, s.start <= last.end {
                out[out.count - 1].end = max(last.end, s.end)
            } else {
                out.append(s)
            }
        }
        return out
    }
}

/// A piece of a message around its first match, on one line, with the matches' offsets
/// in it (Unicode scalars, end excluded): what `search` prints and puts in its JSON.
public struct SearchSnippet: Sendable, Equatable {
    public var text: String
    public var highlights: [SearchMatch.Span]

    public static let width = 100

    public init(text: String, highlights: [SearchMatch.Span], width: Int = SearchSnippet.width) {
        var scalars = Array(text.unicodeScalars)
        for i in scalars.indices where scalars[i] == "\n" || scalars[i] == "\r" || scalars[i] == "\t" { scalars[i] = " " }
        var start = 0, end = scalars.count
        if scalars.count > width {
            let anchor = highlights.first?.start ?? 0
            start = max(0, min(anchor - width / 4, scalars.count - width))
            // Never begin on a combining mark: it belongs to the letter before.
            while start > 0, start < scalars.count, SearchText.isTokenScalar(scalars[start]),
                [.nonspacingMark, .spacingMark, .enclosingMark].contains(scalars[start].properties.generalCategory)
            {
                start -= 1
            }
            end = min(scalars.count, start + width)
        }
        let lead = start > 0 ? 1 : 0
        var out = String.UnicodeScalarView()
        if lead == 1 { out.append("…") }
        out.append(contentsOf: scalars[start..<end])
        if end < scalars.count { out.append("…") }
        self.text = String(out)
        self.highlights = highlights.compactMap { h in
            let s = max(h.start, start), e = min(h.end, end)
            return s < e ? SearchMatch.Span(s - start + lead, e - start + lead) : nil
        }
    }
}
