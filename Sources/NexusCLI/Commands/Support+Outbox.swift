import NexusCore

/// What send, queue flush and retry share: running a delivery and reporting it.
enum Delivery {
    /// Runs a delivery with progress on a terminal for long runs, then compacts the outbox.
    static func run(_ entries: [OutboxEntry], ignoreBackoff: Bool, _ context: CommandContext) throws(CLIError) -> DeliveryReport {
        var delivery = OutboxDelivery(profile: context.profile, api: try context.api())
        let terminal = context.terminal
        if terminal.errorIsTerminal && !context.output.quiet && entries.count > delivery.maxItems {
            delivery.onProgress = { done, total in
                terminal.writeErr("\rSending \(done)/\(total)…" + (done == total ? "\n" : ""))
            }
        }
        do {
            let report = try delivery.deliver(entries, ignoreBackoff: ignoreBackoff)
            if !report.sent.isEmpty { try delivery.outbox.compact() }
            Cache.remember(report.sent.map(\.message), context)
            return report
        } catch {
            throw CLIError(error)
        }
    }

    /// The exit code a delivery earns: a failure's own code, else 75 while anything is
    /// still queued, else 0.
    static func exitCode(_ report: DeliveryReport, failed: [OutboxEntry]? = nil) -> ExitCode {
        if let first = (failed ?? report.failed).first { return failureCode(first, report) }
        return report.stillQueued > 0 ? .unavailable : .ok
    }

    static func failureCode(_ entry: OutboxEntry, _ report: DeliveryReport) -> ExitCode {
        if report.authRefused { return .auth }
        if report.notFound.contains(entry.localId) { return .notFound }
        return .failure
    }

    static func loadEntries(_ context: CommandContext) throws(CLIError) -> [OutboxEntry] {
        do {
            let contents = try Outbox(profile: context.profile).read()
            if contents.damagedRecords > 0 {
                context.output.warn("the outbox has \(contents.damagedRecords) unreadable record(s) (a crash mid-write?); they are skipped, and the file is repaired on the next write")
            }
            return contents.entries
        } catch {
            throw CLIError(error)
        }
    }

    /// Delivers what is due, quietly, after another command reached the server; skipped
    /// when a flush is already running. Its failures never change the command's result.
    static func opportunistic(_ context: CommandContext, ignoreBackoff: Bool = false) {
        let now = Timestamp.now()
        guard let entries = try? Outbox(profile: context.profile).entries(),
              entries.contains(where: { ignoreBackoff ? $0.status == .queued : $0.isDue(at: now) }),
              let lock = try? FileLock.tryAcquire(Outbox(profile: context.profile).flushLockPath)
        else { return }
        defer { lock.unlock() }
        guard let report = try? run(entries, ignoreBackoff: ignoreBackoff, context) else { return }
        if !report.sent.isEmpty { context.output.note("Delivered \(report.sent.count) queued message(s).") }
        for e in report.failed { context.output.warn("\(e.localId): \(e.lastError ?? "failed")") }
    }
}

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
