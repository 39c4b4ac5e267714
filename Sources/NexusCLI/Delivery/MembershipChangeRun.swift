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
        let verdict = report.verdicts(of: [entry])[0]
        var view = View(kind: kind, localId: entry.localId, conversationId: conversationId, status: "queued")
        switch verdict.kind {
        case .sent(let message):
            view.status = "sent"
            view.message = message
            remember(kind, conversationId, context)
        case .unchanged(let note):
            view.status = "unchanged"
            view.note = note
            remember(kind, conversationId, context)
        case .failed:
            view.status = "failed"
            view.error = verdict.entry.lastError
        case .queued:
            view.error = verdict.entry.lastError
            view.nextAttemptAt = verdict.entry.nextAttemptAt
        case .dropped, .applied:
            break
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
        if case .failed(let failure) = verdict.kind {
            let hint = failure == .notFound ? "check the conversation with `nexusctl convos` and the emails with `nexusctl users`." : nil
            throw OutboxSending.failure(failure, of: verdict.entry, report, context, hint: hint)
        }
        if view.status == "queued" { return try OutboxSending.stillQueued(report, context) }
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
