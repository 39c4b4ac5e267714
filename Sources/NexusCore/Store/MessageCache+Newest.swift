extension MessageCache {
    /// The newest `count` cached messages of one conversation, or of all of them (then in
    /// order of sending), oldest first: what `tail` shows when the server can't be reached.
    public func newest(_ count: Int, conversationId: Int64?) throws(StoreError) -> [Message] {
        if let conversationId { return try page(conversationId, before: nil, limit: count).messages }
        var all: [Message] = []
        for id in conversations() { all += try page(id, before: nil, limit: count).messages }
        return Array(all.sorted { ($0.sentAt, $0.id) < ($1.sentAt, $1.id) }.suffix(count))
    }
}
