import NexusCore

enum QueueCommand {
    static let spec = CommandSpec(
        name: "queue", summary: "List the outbox: messages queued, being sent, or failed",
        usage: ["[list]", "flush [--now]"],
        details: "Messages that could not be sent wait in the outbox. `queue flush` delivers them; run it from cron.",
        subcommands: [
            CommandSpec(
                name: "list", summary: "List messages waiting in the outbox or failed", requirements: [.session],
                jsonFields: entryFields, run: list),
            CommandSpec(
                name: "flush", summary: "Send every queued message that is due, oldest first",
                usage: ["[--now]"],
                details: """
                    Sends in batches, oldest first. A message waiting out its backoff (1 s, 2 s, 4 s … up to
                    5 minutes after each failed try, or the server's Retry-After) holds back the later messages
                    of its conversation, so each conversation keeps its order; --now ignores the backoff.
                    Two flushes at once never send a message twice: the second waits for the first.
                    Exit status: 0 all sent; 75 some still queued (server unreachable or busy, or not due);
                    1 some failed; 4 the server refused the credentials.
                    """,
                options: [OptionSpec("now", help: "ignore the backoff and try every queued message now")],
                requirements: [.session], jsonFields: ["sent", "queued", "failed"],
                examples: [("*/5 * * * * nexusctl --quiet queue flush", "a crontab line: deliver the queue every 5 minutes")],
                run: flush),
        ],
        requirements: [.session],
        jsonFields: entryFields,
        run: list)

    static let entryFields = ["localId", "conversationId", "to", "status", "attempts", "queuedAt", "nextAttemptAt", "lastError", "text"]

    static func list(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let outbox = Outbox(profile: context.profile)
        var entries = try Delivery.loadEntries(context).filter { $0.status != .sent }
        // Due messages are being sent right now if a flush holds the lock.
        if let lock = try? FileLock.tryAcquire(outbox.flushLockPath) {
            lock.unlock()
        } else if FileSystem.exists(outbox.flushLockPath) {
            let now = Timestamp.now()
            for i in entries.indices where entries[i].isDue(at: now) { entries[i].status = .sending }
        }
        if context.output.json {
            context.output.document(entries.map(EntryView.init))
        } else if entries.isEmpty {
            context.output.note("The outbox is empty: everything has been sent.")
        } else {
            let now = Timestamp.now()
            context.output.table(
                entries.map { e in
                    let next = e.nextAttemptAt.map { $0 > now ? "in \(($0.milliseconds - now.milliseconds + 999) / 1000) s" : "now" } ?? "now"
                    let error: TerminalText = e.lastError.map { "  (\($0))" } ?? ""
                    return ["\(e.localId)", "\(e.conversationId.map(String.init) ?? e.to ?? "?")", "\(e.status.rawValue)", "\(e.attempts)",
                            "\(next)", preview(e.text, limit: 40) + error]
                },
                header: ["LOCAL ID", "TO", "STATUS", "TRIES", "NEXT", "TEXT"])
        }
        return .ok
    }

    static func flush(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let outbox = Outbox(profile: context.profile)
        let lock: FileLock
        do {
            try context.profile.ensureDirectory()
            if let free = try FileLock.tryAcquire(outbox.flushLockPath) {
                lock = free
            } else {
                context.output.note("Waiting for another `queue flush` of profile '\(context.profile.name)' to finish…")
                lock = try FileLock.acquire(outbox.flushLockPath)
            }
        } catch {
            throw CLIError(error)
        }
        defer { lock.unlock() }

        let queued = try Delivery.loadEntries(context).filter { $0.status == .queued }
        let report = try Delivery.run(queued, ignoreBackoff: context.invocation.flag("now"), context)
        if context.output.json {
            context.output.document(
                FlushView(
                    sent: report.sent.map(\.entry.localId), queued: (report.deferred + report.waiting).map(\.localId),
                    failed: report.failed.map(\.localId)))
        } else {
            context.output.line("sent \(report.sent.count), queued \(report.stillQueued), failed \(report.failed.count)")
        }
        for e in report.failed { context.output.warn("\(e.localId): \(e.lastError ?? "failed")") }
        if let reason = report.stopReason { context.output.warn("\(reason)") }
        if report.authRefused {
            throw CLIError(.auth, DeliveryText.auth, hint: "run `nexusctl login <email>`, then `nexusctl retry --all`.")
        }
        if !report.waiting.isEmpty && report.stopReason == nil {
            context.output.note("\(report.waiting.count) message(s) are waiting out their backoff; `queue flush --now` tries them at once.")
        }
        return Delivery.exitCode(report)
    }

    struct FlushView: Encodable {
        var sent: [String]
        var queued: [String]
        var failed: [String]
    }

    struct EntryView: Encodable {
        var localId: String
        var conversationId: Int64?
        var to: String?
        var status: OutboxStatus
        var attempts: Int
        var queuedAt: Timestamp
        var nextAttemptAt: Timestamp?
        var lastError: String?
        var text: String

        init(_ e: OutboxEntry) {
            localId = e.localId
            conversationId = e.conversationId
            to = e.to
            status = e.status
            attempts = e.attempts
            queuedAt = e.queuedAt
            nextAttemptAt = e.nextAttemptAt
            lastError = e.lastError
            text = e.text
        }
    }
}
