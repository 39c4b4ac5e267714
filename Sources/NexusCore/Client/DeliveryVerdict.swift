/// What became of one outbox entry in a delivery run. A command that tells of its own
/// entries (send, edit, add, retry, `send --each-line`) reads this rather than the report's
/// lists, so an entry is read back one way everywhere.
public struct DeliveryVerdict: Sendable {
    public enum Kind: Sendable {
        /// The server has it: the message it made, or the change's event.
        case sent(Message)
        /// A membership change or mute with nothing left to change: done, with no event;
        /// the server's words for why.
        case unchanged(note: String)
        /// A mute or unmute the server applied: done, with no event.
        case applied
        /// Still in the outbox, to go later: the server could not be reached or was busy,
        /// or it was not tried (backoff, an earlier message held it back).
        case queued
        /// It goes no more without `retry`; the entry's `lastError` says why.
        case failed(Failure)
        /// `queue drop` took it out before it went: never sent.
        case dropped
    }

    /// What a failure comes from, as far as its fix and its exit status go.
    public enum Failure: Sendable, Equatable {
        /// The server refused the credentials of the run: a login or another token fixes it.
        case credentials
        /// The token may not do this there (403 insufficient_scope), in the server's words.
        case outOfScope(String)
        /// No such conversation, message or recipient (404), or one the account is not in.
        case notFound
        /// Not the account's to do (403): someone else's message to edit or delete.
        case forbidden
        /// Any other refusal, or tried past the retry limit.
        case refused
    }

    /// The entry as the run left it: still queued or failed, it says why (`lastError`) and
    /// when it is tried next.
    public var entry: OutboxEntry
    public var kind: Kind
}

extension DeliveryReport {
    /// The verdict on each of `entries`, in their order.
    public func verdicts(of entries: [OutboxEntry]) -> [DeliveryVerdict] {
        var sent: [String: (entry: OutboxEntry, message: Message)] = [:]
        for s in self.sent { sent[s.entry.localId] = s }
        var after: [String: OutboxEntry] = [:]
        for e in failed + deferred + waiting { after[e.localId] = e }
        return entries.map { e in
            if let s = sent[e.localId] { return DeliveryVerdict(entry: s.entry, kind: .sent(s.message)) }
            if dropped.contains(e.localId) { return DeliveryVerdict(entry: e, kind: .dropped) }
            if let note = unchanged[e.localId] { return DeliveryVerdict(entry: e, kind: .unchanged(note: note)) }
            if applied.contains(e.localId) { return DeliveryVerdict(entry: e, kind: .applied) }
            let now = after[e.localId] ?? e
            return DeliveryVerdict(entry: now, kind: now.status == .failed ? .failed(failure(of: now.localId)) : .queued)
        }
    }

    /// The run's refusal of the credentials first: it failed everything after it.
    private func failure(of localId: String) -> DeliveryVerdict.Failure {
        if authRefused { return .credentials }
        if let why = outOfScope[localId] { return .outOfScope(why) }
        if notFound.contains(localId) { return .notFound }
        return forbidden.contains(localId) ? .forbidden : .refused
    }
}
