import NexusCore

/// How `send` and `retry` print a message's outcome in JSON.
struct SendView: Encodable {
    var localId: String
    var status: OutboxStatus
    var conversationId: Int64?
    var message: Message? = nil
    var error: String? = nil
    var nextAttemptAt: Timestamp? = nil

    /// The view of each of `entries` after `report`.
    static func views(_ entries: [OutboxEntry], _ report: DeliveryReport) -> [SendView] {
        var sent: [String: Message] = [:]
        for s in report.sent { sent[s.entry.localId] = s.message }
        var after: [String: OutboxEntry] = [:]
        for e in report.failed + report.deferred + report.waiting { after[e.localId] = e }
        return entries.map { e in
            if let m = sent[e.localId] {
                return SendView(localId: e.localId, status: .sent, conversationId: m.conversationId, message: m)
            }
            let now = after[e.localId] ?? e
            return SendView(
                localId: e.localId, status: now.status == .failed ? .failed : .queued, conversationId: now.conversationId,
                error: now.lastError, nextAttemptAt: now.nextAttemptAt)
        }
    }
}
