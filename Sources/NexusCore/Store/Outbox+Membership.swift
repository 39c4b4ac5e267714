extension OutboxKind {
    /// add, remove, leave and rename: a group's membership.
    var isMembership: Bool {
        switch self {
        case .add, .remove, .leave, .rename: true
        case .send, .edit, .delete, .react, .unreact, .mute, .unmute: false
        }
    }

    /// Membership changes and mutes go one at a time, each by its own endpoint, in order
    /// with the conversation's sends and changes.
    var goesAlone: Bool { isMembership || self == .mute || self == .unmute }
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

    /// Records a mute (until `until`, nil for until unmuted) or an unmute durably.
    @discardableResult
    public func enqueue(mute: Bool, conversationId: Int64, until: Timestamp? = nil, exceptMentions: Bool = false) throws(StoreError) -> OutboxEntry {
        var r = OutboxRecord(op: .queued, localId: Self.newLocalId(), at: .now(), conversationId: conversationId)
        r.kind = mute ? .mute : .unmute
        r.until = mute ? until : nil
        r.exceptMentions = mute && exceptMentions ? true : nil
        try append([r])
        return OutboxEntry(
            kind: r.kind!, localId: r.localId, conversationId: conversationId, text: "", queuedAt: r.at, status: .queued,
            attempts: 0, until: r.until, exceptMentions: r.exceptMentions ?? false)
    }
}
