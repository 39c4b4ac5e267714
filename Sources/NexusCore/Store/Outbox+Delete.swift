/// A delete takes the message's text off this device too (docs/outbox.md): records already
/// sent that still carry it (the send, earlier edits) leave the file. Queuing the delete is
/// the moment: one atomic rewrite that also holds the new `queued` record. Done after the
/// delete went out, the rewrite came on top of the two appends every change makes, and a
/// delete took about 1.8x a send's time.
extension Outbox {
    /// Records `record`, a delete of `message`, durably: by an append, or, when a sent record
    /// still carries the message's text, by a rewrite of the open entries plus `record`.
    func enqueueDelete(_ record: OutboxRecord, of message: MessageReference) throws(StoreError) {
        let lock = try FileLock.acquire(lockPath)
        defer { lock.unlock() }
        if let limit { try admit(1, limit: limit) }
        let contents = try read()
        guard contents.entries.contains(where: { $0.status == .sent && Self.carriesText(of: [message], $0) }) else {
            try file.append(stamped([record]))
            return
        }
        try rewrite(contents, adding: stamped([record]))
    }

    /// Whether `e` holds the text of one of `messages`: their send, or an edit of them.
    static func carriesText(of messages: Set<MessageReference>, _ e: OutboxEntry) -> Bool {
        switch e.kind {
        case .send: e.conversationId.flatMap { c in e.seq.map { messages.contains(MessageReference(conversationId: c, seq: $0)) } } ?? false
        case .edit: e.targetReference.map(messages.contains) ?? false
        case .delete, .react, .unreact, .add, .remove, .leave, .rename, .mute, .unmute: false
        }
    }
}
