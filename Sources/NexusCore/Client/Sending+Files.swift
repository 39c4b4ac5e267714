extension Sending {
    /// The profile's folder for copies of stdin sent with `--file -`: they must outlive the
    /// command until the upload is done.
    public var spoolFolder: String { profile.directory + "/attachments" }

    /// `send --file`: records one message with its files (measured before, see OutboxFile)
    /// durably, then delivers it as `send` does.
    public func send(
        _ text: String, files: [OutboxFile], conversationId: Int64?, to email: String?, lock: LockPolicy
    ) throws(StoreError) -> (queued: [OutboxEntry], outcome: Outcome) {
        try profile.ensureDirectory()
        let now = self.now()
        var record = OutboxRecord(
            op: .queued, localId: Outbox.newLocalId(), at: now, conversationId: conversationId,
            to: conversationId == nil ? email?.lowercased() : nil, text: text)
        record.files = files
        try outbox.append([record])
        let entry = OutboxEntry(
            localId: record.localId, conversationId: record.conversationId, to: record.to, text: text, queuedAt: now,
            status: .queued, attempts: 0, files: files)
        let outcome = try deliver(.conversationsOf([entry.localId]), own: [entry], ignoreBackoff: true, lock: lock)
        return ([entry], outcome)
    }
}
