import NexusCore

enum RetryCommand {
    static let all = Flag("all", help: "retry every failed message")

    static let spec = CommandSpec(
        name: "retry", summary: "Put failed messages back in the queue and send them now",
        usage: ["<localId>...", "--all"],
        details: "Failed messages are never retried by themselves; see them with `nexusctl queue`.\nA localId may be cut short to a prefix that only one message's starts with.\nExit status as for `queue flush`.",
        options: [all],
        arguments: 0...Int.max,
        requirements: [.session],
        jsonFields: ["localId", "status", "conversationId", "message", "error", "nextAttemptAt"],
        examples: [
            ("nexusctl retry --all", "send every failed message again, after a fresh login"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let all = context.invocation[Self.all]
        guard all != !context.arguments.isEmpty else {
            throw .usage("give the localIds of the messages to retry, or --all", hint: "see them with `nexusctl queue`.")
        }
        // Made before anything is written, so a bad server address changes nothing.
        let sending = try OutboxSending.sending(context)
        let chosen: [OutboxEntry]
        let given = all ? nil : try LocalIdArgument.resolve(context.arguments, context)
        do throws(Sending.RetryError) {
            chosen = try sending.retry(given)
        } catch {
            switch error {
            case .notInOutbox(let id):
                throw CLIError(.notFound, "no message with localId \(id) in the outbox", hint: "see them with `nexusctl queue`.")
            case .notFailed(let id, let status):
                throw CLIError(.failure, "message \(id) is \(status.rawValue), not failed; only failed messages are retried")
            case .store(let error):
                throw CLIError(error)
            }
        }
        if chosen.isEmpty {
            context.output.note("No failed messages to retry.")
            if context.output.json { context.output.document([SendView]()) }
            return .ok
        }
        // The whole queue goes, in order, so a retried message keeps its place.
        let report = try OutboxSending.run(sending, .everything, ignoreBackoff: true, lock: .wait(onBusy: nil), context).report
        let views = SendView.views(report.verdicts(of: chosen))
        if context.output.json {
            context.output.document(views)
        } else {
            for v in views { context.output.line("\(v.line)") }
        }
        let ids = Set(chosen.map(\.localId))
        for e in report.failed where ids.contains(e.localId) { context.output.warn("\(e.localId): \(e.lastError ?? "failed")") }
        if let reason = report.stopReason { context.output.warn("\(reason)") }
        if let refusal = OutboxSending.refusal(of: report.failed.first { ids.contains($0.localId) }, report, context) { throw refusal }
        return OutboxSending.exitCode(report, failed: report.failed.filter { ids.contains($0.localId) })
    }
}
