import NexusCore

/// My messages still in the outbox, shown after a conversation's messages as the optimistic
/// UI shows them: at once, "sending…" in place of the time, named by their localId. JSON
/// keeps them apart from the messages (no seq yet): a `queued` array in `history --json`.
enum QueuedLines {
    /// The conversation's (or, nil, every conversation's) messages this account queued,
    /// leaving out those the server already returned (`shown`, by localId): one message,
    /// shown once.
    static func entries(_ conversationId: Int64?, except shown: Set<String>, _ context: CommandContext) -> [OutboxEntry] {
        var outbox = Outbox(profile: context.profile)
        let (me, owner) = OutboxSending.authors(context)
        outbox.author = me
        let to = conversationId.flatMap { directPartner(of: $0, context) }
        guard let entries = try? outbox.pendingSends(in: conversationId, to: to, profileOwner: owner) else { return [] }
        return entries.filter { !shown.contains($0.localId) }
    }

    /// The other person's email in a direct conversation, as the cache knows it.
    private static func directPartner(of conversationId: Int64, _ context: CommandContext) -> String? {
        guard let c = ConversationCache(profile: context.profile).conversation(conversationId), c.kind == .direct else { return nil }
        return c.members.first { $0.id != context.session?.user.id }?.email
    }

    /// `12/…  [sending…] You: text  · Sending (localId 3f2a9c1e)`; a failed one says why and how to retry.
    static func line(_ e: OutboxEntry, output: Output) -> TerminalText {
        let short = String(e.localId.prefix(8))
        let failed = e.status == .failed
        let ref = "\(e.conversationId.map { "\($0)/…" } ?? "…")".padding(6)
        let prefix = output.paint(TerminalText("\(ref)[\(failed ? "failed" : "sending…")]"), .dim)
        let body = TerminalText.body(text(e), continuation: output.paint(TerminalText.continuation(indent: 14), .dim))
        let status =
            failed
            ? "  · Failed: \(e.lastError ?? "refused"); `nexusctl retry \(short)` tries again"
            : "  · Sending (localId \(short))"
        return "\(prefix) \(output.paint("You", .bold)): \(body)\(output.paint(TerminalText(status), .dim))"
    }

    private static func text(_ e: OutboxEntry) -> String {
        let files = e.files.map { "[file \($0.name)]" }
        return ([e.text].filter { !$0.isEmpty } + files).joined(separator: " ")
    }

    /// A queued message in JSON: its own shape, without seq or id, so no script takes it
    /// for one the server has.
    struct View: Encodable {
        var state = "queued"
        var localId: String
        var conversationId: Int64?
        var to: String?
        var senderId: Int64?
        var sender: String?
        var text: String
        var replyTo: Int64?
        var queuedAt: Timestamp
        var status: String
        var statusText: String
        var lastError: String?

        init(_ e: OutboxEntry, me: User) {
            localId = e.localId
            conversationId = e.conversationId
            to = e.conversationId == nil ? e.to : nil
            senderId = me.id
            sender = me.email.isEmpty ? nil : me.email
            text = e.text
            replyTo = e.replyTo
            queuedAt = e.queuedAt
            status = e.status == .failed ? "failed" : "sending"
            statusText = e.status == .failed ? "Failed" : "Sending"
            lastError = e.lastError
        }
    }
}
