import NexusCore

/// The one run behind `mute` and `unmute`: queue the change durably, deliver it after
/// whatever of its conversation was queued before, and say what it left. Offline it stays
/// queued (exit 75), like a send.
enum MuteRun {
    static let exitStatus = """
        Exit status: 0 done (also when it was already so); 75 queued (the server could not be
        reached: `nexusctl queue flush` delivers it later, in order); 1 refused (a token below scope
        all); 2 usage error (nothing is queued); 3 no such conversation, or one you are not in; 4 not
        logged in.
        """

    /// What `--json` prints.
    struct View: Encodable {
        var kind: OutboxKind
        var localId: String
        var conversationId: Int64
        /// done, unchanged (it was already so), queued or failed.
        var status: String
        var until: Timestamp? = nil
        var exceptMentions: Bool? = nil
        var note: String? = nil
        var error: String? = nil
        var nextAttemptAt: Timestamp? = nil
    }

    static func run(
        _ context: CommandContext, mute: Bool, conversationId: Int64, until: Timestamp? = nil, exceptMentions: Bool = false
    ) throws(CLIError) -> ExitCode {
        let sending = try OutboxSending.sending(context)
        let entry: OutboxEntry
        let outcome: Sending.Outcome
        do {
            (entry, outcome) = try sending.mute(
                mute, conversationId: conversationId, until: until, exceptMentions: exceptMentions,
                lock: OutboxSending.waitingLock(context, what: mute ? "the mute" : "the unmute"))
        } catch {
            throw CLIError(error)
        }
        let report = OutboxSending.warnings(outcome, context).report
        let verdict = report.verdicts(of: [entry])[0]
        var view = View(
            kind: entry.kind, localId: entry.localId, conversationId: conversationId, status: "queued",
            until: mute ? until : nil, exceptMentions: mute ? exceptMentions : nil)
        switch verdict.kind {
        case .applied, .sent: view.status = "done"
        case .unchanged(let note):
            view.status = "unchanged"
            view.note = note
        case .failed:
            view.status = "failed"
            view.error = verdict.entry.lastError
        case .queued:
            view.error = verdict.entry.lastError
            view.nextAttemptAt = verdict.entry.nextAttemptAt
        case .dropped: break
        }

        let output = context.output
        if output.json {
            output.document(view)
        } else if view.status == "done" || view.status == "unchanged" {
            output.line(TerminalText(words(view)))
        } else if view.status == "queued" {
            output.line(TerminalText("queued \(entry.kind.rawValue) of \(conversationId) \(entry.localId)"))
        }
        if case .failed(let failure) = verdict.kind {
            let hint = failure == .notFound ? "check the conversation with `nexusctl convos`." : nil
            throw OutboxSending.failure(failure, of: verdict.entry, report, context, hint: hint)
        }
        if view.status == "queued" { return try OutboxSending.stillQueued(report, context) }
        return .ok
    }

    /// "Muted 12 until Tue 18:00 (mentions still notify)." and the like.
    private static func words(_ view: View) -> String {
        guard view.kind == .mute else {
            return view.status == "done" ? "Unmuted \(view.conversationId)." : "\(view.conversationId) was not muted."
        }
        let until = view.until.map { " until \(LocalTime.short($0, now: .now()))" } ?? ""
        let mentions = view.exceptMentions == true ? " (mentions still notify)" : ""
        return view.status == "done" ? "Muted \(view.conversationId)\(until)\(mentions)." : "\(view.conversationId) was already muted so."
    }
}
