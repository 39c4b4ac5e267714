import NexusCore

enum QueueCommand {
    static let spec = CommandSpec(
        name: "queue", summary: "List the outbox: messages queued or failed",
        usage: ["[list]", "flush"],
        details: "Messages that could not be sent wait in the outbox. `queue flush` delivers them (run it from cron).",
        subcommands: [
            CommandSpec(
                name: "list", summary: "List messages waiting in the outbox or failed", requirements: [.session], run: list),
            CommandSpec(
                name: "flush", summary: "Send every queued message now, oldest first",
                details: """
                    Sends queued messages in order and stops at the first one the server can't take yet, so
                    each conversation keeps its order. Two flushes at once never send a message twice.
                    Exit status: 0 all sent; 75 some still queued (server unreachable); 1 some failed.
                    """,
                requirements: [.session], run: flush),
        ],
        requirements: [.session],
        run: list)

    static func list(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let entries: [OutboxEntry]
        do {
            entries = try Outbox(profile: context.profile).entries().filter { $0.status != .sent }
        } catch {
            throw CLIError(error)
        }
        if context.output.json {
            context.output.document(entries.map(EntryView.init))
        } else if entries.isEmpty {
            context.output.note("The outbox is empty: everything has been sent.")
        } else {
            context.output.table(
                entries.map { e in
                    [e.localId, e.conversationId.map(String.init) ?? e.to ?? "?", e.status.rawValue, LocalTime.short(e.queuedAt),
                     preview(e.text, limit: 40) + (e.lastError.map { "  (\($0))" } ?? "")]
                },
                header: ["LOCAL ID", "TO", "STATUS", "QUEUED", "TEXT"])
        }
        return .ok
    }

    static func flush(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let outbox = Outbox(profile: context.profile)
        let lock: FileLock
        do {
            try context.profile.ensureDirectory()
            if let free = try FileLock.tryAcquire(context.profile.outboxLockPath) {
                lock = free
            } else {
                context.output.note("Waiting for another `queue flush` of profile '\(context.profile.name)' to finish…")
                lock = try FileLock.acquire(context.profile.outboxLockPath)
            }
        } catch {
            throw CLIError(error)
        }
        defer { lock.unlock() }

        let queued: [OutboxEntry]
        do {
            queued = try outbox.entries().filter { $0.status == .queued }
        } catch {
            throw CLIError(error)
        }
        let api = try context.api()
        var report = FlushReport()
        var stopped: String?
        for entry in queued {
            if stopped != nil {
                report.queued.append(entry.localId)
                continue
            }
            switch try Delivery.deliver(entry, api: api, context: context) {
            case .sent: report.sent.append(entry.localId)
            case .queued(let reason):
                stopped = reason
                report.queued.append(entry.localId)
            case .failed(let error):
                report.failed.append(entry.localId)
                context.output.warn("\(entry.localId): \(error.message)")
            }
        }
        if context.output.json {
            context.output.document(report)
        } else {
            context.output.line("sent \(report.sent.count), queued \(report.queued.count), failed \(report.failed.count)")
        }
        if let stopped {
            context.output.warn(stopped)
            return .unavailable
        }
        return report.failed.isEmpty ? .ok : .failure
    }

    struct FlushReport: Encodable {
        var sent: [String] = []
        var queued: [String] = []
        var failed: [String] = []
    }

    struct EntryView: Encodable {
        var localId: String
        var conversationId: Int64?
        var to: String?
        var status: OutboxStatus
        var queuedAt: Timestamp
        var text: String
        var lastError: String?

        init(_ e: OutboxEntry) {
            localId = e.localId
            conversationId = e.conversationId
            to = e.to
            status = e.status
            queuedAt = e.queuedAt
            text = e.text
            lastError = e.lastError
        }
    }
}
