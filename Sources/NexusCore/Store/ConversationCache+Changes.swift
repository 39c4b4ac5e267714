extension ConversationCache {
    /// A changed message that is some conversation's last one replaces it in the list and
    /// the details, so the preview follows an edit and a tombstone drops the cached text.
    public func update(lastMessages changed: [Message]) throws(StoreError) {
        let byId = Dictionary(changed.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        var summaries = list()
        var listChanged = false
        for i in summaries.indices {
            if let id = summaries[i].lastMessage?.id, let m = byId[id] {
                summaries[i].lastMessage = m
                listChanged = true
            }
        }
        if listChanged { try saveList(summaries) }
        var details = self.details()
        var detailsChanged = false
        for i in details.indices {
            if let id = details[i].lastMessage?.id, let m = byId[id] {
                details[i].lastMessage = m
                detailsChanged = true
            }
        }
        if detailsChanged { try saveDetails(details) }
    }
}
