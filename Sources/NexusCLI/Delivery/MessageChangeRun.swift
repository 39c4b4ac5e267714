import NexusCore

/// The one run behind `edit`, `delete` and `react`: queue the change durably, deliver it
/// with whatever of its conversation was queued before, and put the outcome into words.
/// Offline it stays queued (exit 75), like a send.
enum MessageChangeRun {
    static let exitStatus = """
        Exit status: 0 done; 75 queued (the server could not be reached: `nexusctl queue flush` delivers
        it later, in order after what was queued before it); 1 refused (someone else's message to edit
        or delete, or a deleted message); 2 usage error (nothing is queued); 3 no such message, or a
        conversation you are not in; 4 not logged in.
        """

    static func run(
        _ context: CommandContext, _ kind: OutboxKind, _ ref: MessageReference, text: String? = nil, emoji: String? = nil,
        done: String
    ) throws(CLIError) -> ExitCode {
        let sending = try OutboxSending.sending(context)
        let entry: OutboxEntry
        let outcome: Sending.Outcome
        do {
            (entry, outcome) = try sending.change(kind, of: ref, text: text, emoji: emoji, lock: OutboxSending.waitingLock(context, what: "the change"))
        } catch {
            throw CLIError(error)
        }
        let report = OutboxSending.warnings(outcome, context).report
        let verdict = report.verdicts(of: [entry])[0]
        let output = context.output
        if output.json {
            output.document(SendView.views([verdict])[0])
        } else if case .sent = verdict.kind {
            output.line("\(done) \(ref)")
        } else if case .queued = verdict.kind {
            output.line("queued \(kind.rawValue) \(ref) \(entry.localId)")
        }
        let earlier = report.sent.filter { $0.entry.localId != entry.localId }.count
        if earlier > 0 { output.note("Also delivered \(earlier) earlier queued change(s) or message(s) of this conversation.") }
        switch verdict.kind {
        case .failed(let failure):
            let hint: String? = switch failure {
            case .forbidden: "only a message's sender can edit or delete it; anyone in the conversation can react."
            case .notFound: "check the reference with `nexusctl history \(ref.conversationId)`."
            default: nil
            }
            throw OutboxSending.failure(failure, of: verdict.entry, report, context, hint: hint)
        case .dropped:
            throw CLIError(.failure, "the \(kind.rawValue) \(entry.localId) was dropped with `nexusctl queue drop` before it was sent")
        case .sent, .unchanged, .applied, .queued:
            try OutboxSending.throwIfCredentialsRefused(report, context, what: "the \(kind.rawValue)")
        }
        if case .queued = verdict.kind { return try OutboxSending.stillQueued(report, context) }
        return .ok
    }
}
