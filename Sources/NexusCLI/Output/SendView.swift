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

    /// The view of each of `entries` after `report`.
    /// The text line: "sent LOCALID 12/345", the sent message named as everywhere else.
    var line: String { "\(status.rawValue) \(localId)" + (status == .sent ? ref.map { " \($0)" } ?? "" : "") }

    static func views(_ entries: [OutboxEntry], _ report: DeliveryReport, warnings: [String: String] = [:]) -> [SendView] {
        views(entries, report).map { view in
            var view = view
            view.warning = warnings[view.localId]
            return view
        }
    }

    private static func views(_ entries: [OutboxEntry], _ report: DeliveryReport) -> [SendView] {
        var sent: [String: Message] = [:]
        for s in report.sent { sent[s.entry.localId] = s.message }
        var after: [String: OutboxEntry] = [:]
        for e in report.failed + report.deferred + report.waiting { after[e.localId] = e }
        return entries.map { e in
            let kind = e.kind == .send ? nil : e.kind.rawValue
            if let m = sent[e.localId] {
                return SendView(kind: kind, localId: e.localId, ref: m.reference, status: .sent, conversationId: m.conversationId, message: m)
            }
            if report.dropped.contains(e.localId) { return SendView(kind: kind, localId: e.localId, ref: e.targetReference, status: .dropped, conversationId: e.conversationId) }
            let now = after[e.localId] ?? e
            return SendView(
                kind: kind, localId: e.localId, ref: e.targetReference, status: now.status == .failed ? .failed : .queued,
                conversationId: now.conversationId, error: now.lastError, nextAttemptAt: now.nextAttemptAt)
        }
    }
}
