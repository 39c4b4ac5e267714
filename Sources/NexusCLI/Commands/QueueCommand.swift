import NexusCore

enum QueueCommand {
    static let now = Flag("now", help: "ignore the backoff and try every queued message now")

    static let spec = CommandSpec(
        name: "queue", summary: "List the outbox: messages queued, being sent, or failed",
        usage: ["[list]", "flush [--now]", "repair [--drop]", "drop <localId>... [--yes]", "drop --failed | --all [--yes]"],
        details: """
            Messages that could not be sent wait in the outbox. `queue flush` delivers them; run it from cron.
            Listing needs no login: the outbox is a file of the profile. A failed message shows "-" as its next
            attempt: it is not retried until `nexusctl retry`. BY is the account that queued each message
            (its email, or "the access token that queued it" for a $NEXUS_TOKEN offline; "-" for one an
            older nexusctl queued: the profile's account's): only a delivery as that account sends it.
            """,
        subcommands: [
            CommandSpec(
                name: "list", summary: "List messages waiting in the outbox or failed",
                jsonFields: entryFields, run: list),
            CommandSpec(
                name: "flush", summary: "Send every queued message that is due, oldest first",
                usage: ["[--now]"],
                details: """
                    Sends in batches, oldest first. A message waiting out its backoff (1 s, 2 s, 4 s … up to
                    5 minutes after each failed try, or the server's Retry-After) holds back the later messages
                    of its conversation, so each conversation keeps its order; --now ignores the backoff.
                    Two flushes at once never send a message twice: the second waits for the first.
                    A line of the outbox that can't be read (a damaged record) is named on stderr, counted as
                    damaged, and kept; its message may never be sent until you look at it with `queue repair`.
                    Only the messages this command's account queued go (a $NEXUS_TOKEN's, or the login's);
                    another account's stay queued for it, and a note says for whom they wait.
                    It prints "sent N, queued N, failed N"; with --quiet only when something failed or is
                    damaged, so a crontab line mails nothing while all is well.
                    Exit status: 0 all sent; 75 some still queued (server unreachable or busy, or not due);
                    1 some failed; 4 the server refused the credentials; 6 the outbox holds damaged records
                    (everything readable was still delivered).
                    """,
                options: [now],
                requirements: [.session], jsonFields: ["sent", "queued", "failed", "damaged"],
                examples: [("*/5 * * * * nexusctl --quiet queue flush", "a crontab line: deliver the queue every 5 minutes")],
                run: flush),
            QueueRepair.spec,
            QueueDrop.spec,
        ],
        jsonFields: entryFields,
        run: list)

    static let entryFields = [
        "kind", "localId", "conversationId", "to", "ref", "emoji", "status", "attempts", "queuedAt", "nextAttemptAt", "lastError", "text", "emails", "files", "author",
    ]

    static func list(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let entries: [OutboxEntry]
        do {
            entries = OutboxSending.warnDamage(try Outbox(profile: context.profile).queue(), context).entries
        } catch {
            throw CLIError(error)
        }
        if context.output.json {
            let progress = UploadProgress(profile: context.profile)
            context.output.document(entries.map { EntryView($0, progress: progress) })
        } else if entries.isEmpty {
            context.output.note("The outbox is empty: everything has been sent.")
        } else {
            let now = Timestamp.now()
            context.output.table(
                entries.map { e in
                    let next = e.status == .failed ? "-"
                        : e.nextAttemptAt.map { $0 > now ? "in \(($0.milliseconds - now.milliseconds + 999) / 1000) s" : "now" } ?? "now"
                    let error: TerminalText = e.lastError.map { "  (\($0))" } ?? ""
                    return ["\(e.localId)", "\(e.conversationId.map(String.init) ?? e.to ?? "?")", "\(e.status.rawValue)", "\(e.attempts)",
                            "\(next)", "\(e.author?.name ?? "-")", what(e) + error]
                },
                header: ["LOCAL ID", "TO", "STATUS", "TRIES", "NEXT", "BY", "TEXT"])
        }
        return .ok
    }

    static func flush(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let sending = try OutboxSending.sending(context)
        let name = context.profile.name
        let output = context.output
        let outcome = try OutboxSending.run(
            sending, .everything, ignoreBackoff: context.invocation[now],
            lock: .wait(onBusy: { output.note("Waiting for another `queue flush` of profile '\(name)' to finish…") }), context)
        let report = outcome.report
        if output.json {
            output.document(
                FlushView(
                    sent: report.sent.map(\.entry.localId), queued: (report.deferred + report.waiting).map(\.localId),
                    failed: report.failed.map(\.localId), damaged: outcome.damaged))
        } else if !output.quiet || !report.failed.isEmpty || !outcome.damaged.isEmpty {
            // --quiet is for cron, which mails whatever is printed: only trouble is told.
            output.line("sent \(report.sent.count), queued \(report.stillQueued), failed \(report.failed.count)"
                + (outcome.damaged.isEmpty ? "" : ", damaged \(outcome.damaged.count)"))
        }
        for e in report.failed { output.warn("\(e.localId): \(e.lastError ?? "failed")") }
        if let reason = report.stopReason { output.warn("\(reason)") }
        if let security = report.transportSecurity { throw CLIError(security, server: try context.serverAddress()) }
        if let refusal = OutboxSending.refusal(of: report.failed.first, report, context) { throw refusal }
        OutboxSending.noteOtherAuthors(report, context)
        if !report.waiting.isEmpty && report.stopReason == nil {
            output.note("\(report.waiting.count) message(s) are waiting out their backoff; `queue flush --now` tries them at once.")
        }
        // A message that can't be read must not pass for a clean run, even after the rest went.
        if !outcome.damaged.isEmpty {
            throw CLIError(
                .store, "the outbox holds \(outcome.damaged.count) damaged record(s) that can't be sent",
                hint: "see them with `nexusctl queue repair`, and drop them with `nexusctl queue repair --drop`.")
        }
        return OutboxSending.exitCode(report)
    }

    struct FlushView: Encodable {
        var sent: [String]
        var queued: [String]
        var failed: [String]
        var damaged: [DamagedRecord]
    }

    /// A send's text; a change as what it does: "edit 12/3: new text", "react 👍 12/3".
    static func what(_ e: OutboxEntry) -> TerminalText {
        if let membership = MembershipText.queued(e) { return TerminalText(membership) }
        if e.kind == .mute { return TerminalText("mute" + (e.until.map { " until \(LocalTime.short($0, now: .now()))" } ?? "")) }
        if e.kind == .unmute { return "unmute" }
        guard let ref = e.targetReference else { return preview(e.text, limit: 40) }
        switch e.kind {
        case .edit: return "edit \(ref): " + preview(e.text, limit: 30)
        case .react, .unreact: return "\(e.kind.rawValue) \(e.emoji ?? "") \(ref)"
        case .delete, .send, .add, .remove, .leave, .rename, .mute, .unmute: return "\(e.kind.rawValue) \(ref)"
        }
    }

    struct EntryView: Encodable {
        var kind: OutboxKind
        var localId: String
        var conversationId: Int64?
        var to: String?
        /// The message a change names.
        var ref: MessageReference?
        var emoji: String?
        var status: OutboxStatus
        var attempts: Int
        var queuedAt: Timestamp
        var nextAttemptAt: Timestamp?
        var lastError: String?
        var text: String
        /// An add's or a remove's members.
        var emails: [String]?
        /// A send's files; absent when none.
        var files: [FileView]?
        /// Who queued it, for whom it waits: only a delivery as this account sends it.
        /// Absent for an entry of an older nexusctl (the profile's account's).
        var author: OutboxAuthor?

        struct FileView: Encodable {
            var name: String
            var size: Int64
            var sha256: String
            /// Bytes the server had acknowledged at the last try, when one was made.
            var uploaded: Int64?
        }

        init(_ e: OutboxEntry, progress: UploadProgress) {
            kind = e.kind
            emails = e.emails.isEmpty ? nil : e.emails
            localId = e.localId
            conversationId = e.conversationId
            to = e.to
            ref = e.targetReference
            emoji = e.emoji
            status = e.status
            attempts = e.attempts
            queuedAt = e.queuedAt
            nextAttemptAt = e.nextAttemptAt
            lastError = e.lastError
            text = e.text
            author = e.author
            files = e.files.isEmpty ? nil : e.files.map {
                FileView(name: $0.name, size: $0.size, sha256: $0.sha256, uploaded: progress.bytes($0.sha256))
            }
        }
    }
}
