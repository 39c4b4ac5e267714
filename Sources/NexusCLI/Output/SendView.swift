import NexusCore

/// How `send`, `retry`, `edit`, `delete` and `react` print an outbox entry's outcome in JSON.
struct SendView: Encodable {
    /// For a change: edit, delete, react or unreact (absent for a send).
    var kind: String? = nil
    var localId: String
    /// The message as `CONVERSATION/SEQ`: a send's once sent, a change's always.
    var ref: MessageReference? = nil
    var status: OutboxStatus
    var conversationId: Int64?
    var message: Message? = nil
    var error: String? = nil
    var nextAttemptAt: Timestamp? = nil
    /// Bytes of its text that were not valid UTF-8 were sent as U+FFFD: where (as on stderr).
    var warning: String? = nil

    /// The text line: "sent LOCALID 12/345", the sent message named as everywhere else.
    var line: String { "\(status.rawValue) \(localId)" + (status == .sent ? ref.map { " \($0)" } ?? "" : "") }

    /// The view of each verdict; `warnings` by localId.
    static func views(_ verdicts: [DeliveryVerdict], warnings: [String: String] = [:]) -> [SendView] {
        verdicts.map { verdict in
            var view = Self.view(of: verdict)
            view.warning = warnings[view.localId]
            return view
        }
    }

    private static func view(of verdict: DeliveryVerdict) -> SendView {
        let e = verdict.entry
        let kind = e.kind == .send ? nil : e.kind.rawValue
        switch verdict.kind {
        case .sent(let m):
            return SendView(kind: kind, localId: e.localId, ref: m.reference, status: .sent, conversationId: m.conversationId, message: m)
        case .dropped:
            return SendView(kind: kind, localId: e.localId, ref: e.targetReference, status: .dropped, conversationId: e.conversationId)
        case .queued, .failed, .unchanged, .applied:
            return SendView(
                kind: kind, localId: e.localId, ref: e.targetReference, status: e.status == .failed ? .failed : .queued,
                conversationId: e.conversationId, error: e.lastError, nextAttemptAt: e.nextAttemptAt)
        }
    }
}
