extension MessageCache {
    /// Keeps messages as they are now: an edit, a tombstone, new reactions. A cached message
    /// that differs is put in its place by rewriting its segment atomically (temporary file,
    /// rename), so a deleted message's text leaves the file; the rest are inserted as
    /// `insert` does. Only segments with a real difference are rewritten: reading a page
    /// the cache already agrees with costs a binary search per run, as a read does.
    public func upsert(_ messages: [Message]) throws(StoreError) {
        var byConversation: [Int64: [Message]] = [:]
        for m in messages where m.seq > 0 { byConversation[m.conversationId, default: []].append(m) }
        for (conversationId, list) in byConversation {
            let low = list.map(\.seq).min()!, high = list.map(\.seq).max()!
            var cached: [Int64: Message] = [:]
            for m in try self.messages(conversationId, seqs: low...high) { cached[m.seq] = m }
            var newer: [Int64: Message] = [:]
            for m in list where cached[m.seq] != nil && cached[m.seq] != m { newer[m.seq] = m }
            if !newer.isEmpty { try rewrite(conversationId, with: newer) }
            try insert(list.filter { cached[$0.seq] == nil })
        }
    }

    private func rewrite(_ conversationId: Int64, with newer: [Int64: Message]) throws(StoreError) {
        for s in try segments(conversationId) where newer.keys.contains(where: { s.first <= $0 && $0 <= s.last }) {
            let lines = JSONLinesFile.parse(try FileSystem.readFile(s.path) ?? [], as: Message.self)
            // Not fsynced, like every cache write: still atomic (temporary file, rename), so
            // the old text is in no file reachable by name once this returns.
            try JSONLinesFile(path: s.path).replace(with: lines.records.map { newer[$0.seq] ?? $0 }, keeping: lines.skipped, durable: false)
        }
    }
}
