extension NexusAPI {
    /// Messages matching `query` in the caller's conversations (GET /v1/search).
    public func search(_ query: String, filter: SearchFilter) throws(APIError) -> SearchResponse {
        var items = ["q=" + percentEncode(query), "limit=\(filter.limit)"]
        items += filter.conversations.map { "in=\($0)" }
        items += filter.senders.map { "from=" + percentEncode($0) }
        if let after = filter.after { items.append("after=" + percentEncode(after.iso8601)) }
        if let before = filter.before { items.append("before=" + percentEncode(before.iso8601)) }
        if filter.rank { items.append("order=rank") }
        if let page = filter.page { items.append("page=" + percentEncode(page.description)) }
        return try call("GET", "/v1/search?" + items.joined(separator: "&"))
    }
}
