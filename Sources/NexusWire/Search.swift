/// `GET /v1/search`'s answer: hits newest first (or by score with `order=rank`), and
/// where the next page starts.
public struct SearchResponse: Codable, Sendable {
    public var hits: [SearchHit]
    /// Pass back as `page` for the next page; nil on the last.
    public var next: String?

    public init(hits: [SearchHit], next: String?) {
        self.hits = hits
        self.next = next
    }
}

public struct SearchHit: Codable, Sendable, Equatable {
    public var message: Message
    /// How well it matches (SearchMatch.score), from the message's text alone.
    public var score: Double

    public init(message: Message, score: Double) {
        self.message = message
        self.score = score
    }
}

/// Where a page of search results starts: below a message id (newest first), or after
/// so many hits (by rank). Written `before:ID` and `skip:N`.
public enum SearchPageToken: Sendable, Equatable, CustomStringConvertible {
    case before(Int64)
    case skip(Int)

    /// A ranked search orders at most SearchFilter.rankedCandidates hits: a skip past them
    /// names no page.
    public static let skips: ClosedRange<Int64> = 1...Int64(SearchFilter.rankedCandidates)

    public init?(_ text: String) {
        if text.hasPrefix("before:"), let id = CheckedNumbers.parse(text.dropFirst(7), in: 1...Int64.max) {
            self = .before(id)
        } else if text.hasPrefix("skip:"), let n = CheckedNumbers.parse(text.dropFirst(5), in: Self.skips) {
            self = .skip(Int(n))
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .before(let id): return "before:\(id)"
        case .skip(let n): return "skip:\(n)"
        }
    }
}

/// The filters of a search besides its query, as the client sends them.
public struct SearchFilter: Sendable, Equatable {
    public var conversations: [Int64] = []
    /// Sender emails, lower case.
    public var senders: [String] = []
    public var after: Timestamp?
    public var before: Timestamp?
    public var rank = false
    public var page: SearchPageToken?
    public var limit = Limits.defaultPageSize

    public init() {}

    /// How many matches `--rank` orders: the newest this many.
    public static let rankedCandidates = 1_000
}
