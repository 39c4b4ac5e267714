/// Pages of hits from matching messages, as the server and the offline search both cut
/// them, so a page token means the same from either.
public enum SearchResults {
    /// `newestFirst` holds up to limit + 1 matches in descending id order.
    public static func newest(_ newestFirst: [Message], query: SearchQuery, limit: Int) -> SearchResponse {
        let page = newestFirst.prefix(limit)
        let hits = page.map { SearchHit(message: $0, score: SearchMatch(query, text: $0.text).score) }
        let next = newestFirst.count > limit ? page.last.map { SearchPageToken.before($0.id).description } : nil
        return SearchResponse(hits: hits, next: next)
    }

    /// Orders `candidates` by score, newest first among equals, and cuts the page after `skip`.
    public static func ranked(_ candidates: [Message], query: SearchQuery, skip: Int, limit: Int) -> SearchResponse {
        let scored = candidates.map { SearchHit(message: $0, score: SearchMatch(query, text: $0.text).score) }
            .sorted { ($0.score, $0.message.id) > ($1.score, $1.message.id) }
        let page = Array(scored.dropFirst(skip).prefix(limit))
        let end = skip.saturatingAdd(limit)
        let next = scored.count > end ? SearchPageToken.skip(end).description : nil
        return SearchResponse(hits: page, next: next)
    }
}
