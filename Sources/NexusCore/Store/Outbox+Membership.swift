extension OutboxKind {
    /// add, remove, leave and rename: a group's membership, delivered one at a time by
    /// their own endpoints, in order with the conversation's sends and changes.
    var isMembership: Bool {
        switch self {
        case .add, .remove, .leave, .rename: true
        case .send, .edit, .delete, .react, .unreact: false
        }
    }
}

extension Outbox {
    /// Records a membership change durably: an add or remove (with `emails`), a leave, or
    /// a rename (the new name as `text`).
    @discardableResult
    public func enqueue(membership kind: OutboxKind, conversationId: Int64, emails: [String] = [], name: String? = nil) throws(StoreError) -> OutboxEntry {
        var r = OutboxRecord(op: .queued, localId: Self.newLocalId(), at: .now(), conversationId: conversationId, text: name)
        r.kind = kind
        r.emails = emails.isEmpty ? nil : emails
        try append([r])
        return OutboxEntry(
            kind: kind, localId: r.localId, conversationId: conversationId, text: name ?? "", queuedAt: r.at, status: .queued,
            attempts: 0, emails: emails)
    }
}
