/// A parsed `search` query, the same on the server, which turns it into FTS5 or tsquery,
/// and offline, where `SearchMatch` applies it to cached text. Syntax: words (all must
/// match), "quoted phrases", -excluded words or phrases, and word* for a prefix.
public struct SearchQuery: Sendable, Equatable {
    public struct Term: Sendable, Equatable {
        /// Folded tokens (see SearchText.tokens): a word is one, a phrase or a word such as
        /// "e-mail" several, matched next to each other.
        public var tokens: [String]
        /// The same tokens as typed, for the server, whose indexes fold them themselves.
        public var words: [String]
        /// The last token may end there (`deploy*`).
        public var prefix: Bool
        /// A message with this term is left out (`-draft`).
        public var excluded: Bool
        /// The term as typed, for terms matched as a substring: emoji, CJK, and terms
        /// without letters or digits, which word indexes split or drop.
        public var substring: String?
    }

    public var terms: [Term]
    /// The query as given, to send to the server.
    public var text: String

    public var required: [Term] { terms.filter { !$0.excluded } }
    public var excluded: [Term] { terms.filter(\.excluded) }

    public static let maxBytes = 1_000

    public init(parsing text: String) throws(SearchQueryError) {
        guard text.utf8.count <= Self.maxBytes else { throw .tooLong }
        self.text = text
        var terms: [Term] = []
        var scalars = Substring(text).unicodeScalars[...]
        while let first = scalars.first {
            if first.properties.isWhitespace { scalars.removeFirst(); continue }
            var excluded = false
            if first == "-" {
                excluded = true
                scalars.removeFirst()
            }
            var raw = String.UnicodeScalarView()
            var quoted = false
            var prefixAfterQuote = false
            if scalars.first == "\"" {
                quoted = true
                scalars.removeFirst()
                guard let close = scalars.firstIndex(of: "\"") else { throw .unclosedQuote }
                raw.append(contentsOf: scalars[..<close])
                scalars = scalars[scalars.index(after: close)...]
                if scalars.first == "*" {
                    prefixAfterQuote = true
                    scalars.removeFirst()
                }
            } else {
                while let s = scalars.first, !s.properties.isWhitespace {
                    raw.append(s)
                    scalars.removeFirst()
                }
            }
            var word = String(raw)
            var prefix = prefixAfterQuote
            if !quoted, word.hasSuffix("*") {
                prefix = true
                word.removeLast()
            }
            if word.isEmpty {
                if prefix { throw .bareStar }
                continue
            }
            let tokens = SearchText.tokens(word)
            if SearchText.needsSubstring(word) || tokens.isEmpty {
                terms.append(Term(tokens: [], words: [], prefix: false, excluded: excluded, substring: word))
            } else {
                terms.append(Term(tokens: tokens.map(\.folded), words: tokens.map(\.text), prefix: prefix, excluded: excluded, substring: nil))
            }
        }
        guard !terms.isEmpty else { throw .empty }
        guard terms.contains(where: { !$0.excluded }) else { throw .onlyExclusions }
        self.terms = terms
    }
}

public enum SearchQueryError: Error, Equatable, CustomStringConvertible {
    case empty
    case onlyExclusions
    case unclosedQuote
    case bareStar
    case tooLong

    public var description: String {
        switch self {
        case .empty: return "the search query has no words"
        case .onlyExclusions: return "the search query only excludes words; give at least one word to find"
        case .unclosedQuote: return "the search query has a \" that is not closed"
        case .bareStar: return "a * in a search query must follow a word, as in deploy*"
        case .tooLong: return "the search query is longer than \(SearchQuery.maxBytes) bytes"
        }
    }
}
