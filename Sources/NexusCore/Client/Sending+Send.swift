extension Sending {
    /// `send`: records the texts durably, in order, then delivers them together with every
    /// earlier queued message of their conversation, which goes first.
    public func send(
        _ texts: [String], conversationId: Int64?, to email: String?, lock: LockPolicy
    ) throws(StoreError) -> (queued: [OutboxEntry], outcome: Outcome) {
        let queued = try enqueue(texts, conversationId: conversationId, to: email)
        let outcome = try deliver(.conversationsOf(Set(queued.map(\.localId))), ignoreBackoff: true, lock: lock)
        return (queued, outcome)
    }
}
