import NexusCore

/// The one run behind `add`, `remove`, `leave` and `rename`: queue the change durably,
/// deliver it with whatever of its conversation was queued before, and put the outcome
/// into words. Offline it stays queued (exit 75), like a send.
enum MembershipChangeRun {
    static let exitStatus = """
        Exit status: 0 done (also when there was nothing to change: everyone named was already in, or
        not in); 75 queued (the server could not be reached: `nexusctl queue flush` delivers it later,
        in order after what was queued before it); 1 refused (a direct conversation, someone else's
        bot, or a token without scope all); 2 usage error (nothing is queued); 3 no such conversation
        or user, or a conversation you are not in; 4 not logged in.
        """

    /// What `--json` prints: the entry's outcome, with the event once it is on the server.
    struct View: Encodable {
        var kind: OutboxKind
        var localId: String
        var conversationId: Int64
        /// sent, unchanged (nothing to change, no event), queued or failed.
        var status: String
        var message: Message? = nil
        var note: String? = nil
        var error: String? = nil
        var nextAttemptAt: Timestamp? = nil
    }

    static func run(
        _ context: CommandContext, _ kind: OutboxKind, conversationId: Int64, emails: [String] = [], name: String? = nil
    ) throws(CLIError) -> ExitCode {
        let sending = try OutboxSending.sending(context)
        let entry: OutboxEntry
        let outcome: Sending.Outcome
        do {
            (entry, outcome) = try sending.membership(kind, conversationId: conversationId, emails: emails, name: name, lock: OutboxSending.waitingLock(context, what: "the change"))
        } catch {
            throw CLIError(error)
        }
        let report = OutboxSending.warnings(outcome, context).report
        var view = View(kind: kind, localId: entry.localId, conversationId: conversationId, status: "queued")
        let failed = report.failed.first { $0.localId == entry.localId }
        let waiting = (report.deferred + report.waiting).first { $0.localId == entry.localId }
        if let sent = report.sent.first(where: { $0.entry.localId == entry.localId }) {
            view.status = "sent"
            view.message = sent.message
            remember(kind, conversationId, context)
        } else if let note = report.unchanged[entry.localId] {
            view.status = "unchanged"
            view.note = note
            remember(kind, conversationId, context)
        } else if let failed {
            view.status = "failed"
            view.error = failed.lastError
        } else {
            view.error = waiting?.lastError
            view.nextAttemptAt = waiting?.nextAttemptAt
        }

        let output = context.output
        if output.json {
            output.document(view)
        } else if let m = view.message {
            output.line(TerminalText(m.text))
        } else if let note = view.note {
            output.note(TerminalText("Nothing to change: \(note)"))
        } else if view.status == "queued" {
            output.line(TerminalText("queued \(MembershipText.queued(entry) ?? kind.rawValue) \(entry.localId)"))
        }
        let earlier = report.sent.filter { $0.entry.localId != entry.localId }.count
        if earlier > 0 { output.note("Also delivered \(earlier) earlier queued change(s) or message(s) of this conversation.") }
        if let failed {
            if let refusal = OutboxSending.refusal(of: failed, report, context) { throw refusal }
            let code = report.forbidden.contains(failed.localId) ? ExitCode.failure : OutboxSending.failureCode(failed, report)
            let hint: String? =
                report.authRefused ? "run `nexusctl login <email>`, then `nexusctl retry --all`."
                : report.notFound.contains(failed.localId) ? "check the conversation with `nexusctl convos` and the emails with `nexusctl users`." : nil
            throw CLIError(code, failed.lastError ?? DeliveryText.other, hint: hint)
        }
        if view.status == "queued" {
            output.warn("\(report.stopReason ?? DeliveryText.network)")
            output.note("Queued safely in the outbox; `nexusctl queue flush` (or the next online command) delivers it.")
            if let security = report.transportSecurity { throw CLIError(security, server: try context.serverAddress()) }
            return .unavailable
        }
        return .ok
    }

    /// Keeps the local cache in step: a conversation I left leaves the list (its messages
    /// stay cached); otherwise its new name and members are fetched. Best effort.
    private static func remember(_ kind: OutboxKind, _ id: Int64, _ context: CommandContext) {
        if kind == .leave {
            let cache = ConversationCache(profile: context.profile)
            let list = cache.list()
            if list.contains(where: { $0.id == id }) { try? cache.saveList(list.filter { $0.id != id }) }
        } else if let reading = try? context.reading() {
            _ = try? reading.conversation(id)
        }
    }
}
