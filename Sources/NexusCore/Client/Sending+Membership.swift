extension Sending {
    /// `add`, `remove`, `leave` and `rename`: records the change durably, then delivers it
    /// with every earlier queued entry of its conversation, which goes first, as a send.
    public func membership(
        _ kind: OutboxKind, conversationId: Int64, emails: [String] = [], name: String? = nil, lock: LockPolicy
    ) throws(StoreError) -> (queued: OutboxEntry, outcome: Outcome) {
        try profile.ensureDirectory()
        let queued = try outbox.enqueue(membership: kind, conversationId: conversationId, emails: emails, name: name)
        let outcome = try deliver(.conversationsOf([queued.localId]), own: [queued], ignoreBackoff: true, lock: lock)
        return (queued, outcome)
    }

    /// `mute` and `unmute`: recorded durably, then delivered in order after what was
    /// queued before in the conversation.
    public func mute(
        _ mute: Bool, conversationId: Int64, until: Timestamp? = nil, exceptMentions: Bool = false, lock: LockPolicy
    ) throws(StoreError) -> (queued: OutboxEntry, outcome: Outcome) {
        try profile.ensureDirectory()
        let queued = try outbox.enqueue(mute: mute, conversationId: conversationId, until: until, exceptMentions: exceptMentions)
        let outcome = try deliver(.conversationsOf([queued.localId]), own: [queued], ignoreBackoff: true, lock: lock)
        return (queued, outcome)
    }
}

extension OutboxDelivery {
    /// One membership change or mute as a batch result: the server's refusals (4xx but
    /// 401 and 429) are the entry's own, as a rejected item of a batch is; anything else
    /// stops the run as a failed batch does. An `unchanged` answer is done, with no event:
    /// its note rides in `error`, and the status is `duplicate` with no message. A mute
    /// that changed something is `created` with no message.
    func aloneResult(_ e: OutboxEntry) throws(APIError) -> BatchResult {
        do {
            if e.kind == .mute || e.kind == .unmute {
                let response = try api.setMute(e)
                if response.changed { return BatchResult(localId: e.localId, status: .created) }
                let note = e.kind == .mute ? "it was already muted so." : "it was not muted."
                return BatchResult(localId: e.localId, status: .duplicate, error: .init(code: "unchanged", message: note))
            }
            let response = try api.changeMembership(e)
            switch response.status {
            case .created: return BatchResult(localId: e.localId, status: .created, message: response.message)
            case .duplicate: return BatchResult(localId: e.localId, status: .duplicate, message: response.message)
            case .unchanged:
                return BatchResult(localId: e.localId, status: .duplicate, error: .init(code: "unchanged", message: response.note ?? "Nothing to change."))
            }
        } catch {
            guard case .server(let status, let code, let message, _) = error, (400..<500).contains(status), status != 401, status != 429 else {
                throw error
            }
            return BatchResult(localId: e.localId, status: .rejected, error: .init(code: code, message: message), httpStatus: status)
        }
    }
}
