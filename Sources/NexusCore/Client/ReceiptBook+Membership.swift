extension ReceiptBook {
    /// Keeps "Read by N/M" counting the members of now: an add, remove or leave seen in
    /// the feed changes who counts, from that event on (events the members were learnt
    /// with are skipped).
    public func apply(membership m: Message) {
        guard let event = m.membership, receipts[m.conversationId] != nil, m.seq > learnedAt[m.conversationId] ?? 0 else { return }
        switch event.kind {
        case .added:
            for id in event.userIds ?? [] where receipts[m.conversationId]?[id] == nil {
                receipts[m.conversationId]?[id] = MemberReceipts(userId: id, deliveredSeq: 0, readSeq: 0)
            }
        case .removed:
            for id in event.userIds ?? [] { receipts[m.conversationId]?[id] = nil }
        case .left:
            receipts[m.conversationId]?[m.senderId] = nil
        case .renamed:
            break
        }
    }
}
