extension Sending {
    /// `send`: records the texts durably, in order, then delivers them together with every
    /// earlier queued message of their conversation, which goes first.
    public func send(
        _ texts: [String], conversationId: Int64?, to email: String?, replyTo: Int64? = nil, lock: LockPolicy
    ) throws(StoreError) -> (queued: [OutboxEntry], outcome: Outcome) {
        try profile.ensureDirectory()
        let queued = try outbox.enqueue(texts.map { (conversationId, conversationId == nil ? email?.lowercased() : nil, $0) }, replyTo: replyTo)
        let outcome = try deliver(.conversationsOf(Set(queued.map(\.localId))), own: queued, ignoreBackoff: true, lock: lock)
        return (queued, outcome)
    }

    /// `edit`, `delete` and `react`: records the change durably, then delivers it with every
    /// earlier queued entry of its conversation, which goes first (the one ordering rule:
    /// a change never overtakes what was queued before it).
    public func change(
        _ kind: OutboxKind, of message: MessageReference, text: String? = nil, emoji: String? = nil, lock: LockPolicy
    ) throws(StoreError) -> (queued: OutboxEntry, outcome: Outcome) {
        try profile.ensureDirectory()
        let queued = try outbox.enqueue(change: kind, of: message, text: text, emoji: emoji)
        let outcome = try deliver(.conversationsOf([queued.localId]), own: [queued], ignoreBackoff: true, lock: lock)
        return (queued, outcome)
    }
}
