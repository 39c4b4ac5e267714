import NexusCore

extension SendCommand {
    /// `send --each-line`: the core's stream, and the words for it. Each message's status
    /// is printed once, when it is sent (or fails), or at the end while it still waits.
    static func streamLines(_ context: CommandContext, target: String) throws(CLIError) -> ExitCode {
        guard context.arguments.count == 1 else { throw .usage("--each-line reads the messages from stdin; give no <text>") }
        // Every check that can fail as a usage error comes before the outbox is touched.
        let conversationId = try Conversations.localId(for: target, profile: context.profile)
        // A long-running sender keeps its user online until its input ends.
        try LivePresence.start(context)
        let sending = try OutboxSending.sending(context)
        let output = context.output
        var printed = 0
        var warnings: [String: String] = [:]
        func print(_ views: [SendView]) {
            for v in views {
                if output.json { output.listElement(v, first: printed == 0) } else { output.line("\(v.line)") }
                printed += 1
            }
        }
        let told = Latch()
        var input = LineStream(fd: 0)
        let result: Sending.StreamResult
        do {
            result = try sending.stream(
                &input, conversationId: conversationId, to: target,
                lock: .wait(onBusy: {
                    // Another send or flush is delivering; only a person watching needs to hear it, once.
                    guard context.terminal.errorIsTerminal, !told.value else { return }
                    told.value = true
                    context.output.note("Waiting for another delivery (a `queue flush` or `send`) to finish; the lines are queued safely…")
                }),
                check: { Limits.problem(withText: $0) },
                queued: { lines in
                    for (line, entry) in lines where line.replacedBytes {
                        guard let warning = InvalidUTF8.warning("stdin", lines: [line.number]) else { continue }
                        warnings[entry.localId] = warning
                        output.warn("\(warning)")
                    }
                },
                settled: { outcome, done in
                    _ = OutboxSending.warnings(outcome, context)
                    print(SendView.views(done, warnings: warnings))
                })
        } catch {
            throw CLIError(error)
        }
        let report = result.lastReport
        // The input ended (or the sending stopped): say goodbye now. A signal says it on its way out.
        if case .interrupted = result.end {} else { TerminationGuard.sayFarewell() }
        print(SendView.views(result.stillQueued, warnings: warnings))
        if output.json && (printed > 0 || result.queued > 0) { output.endList(empty: printed == 0) }
        if result.earlierDelivered > 0 { output.note("Also delivered \(result.earlierDelivered) earlier queued message(s) of this conversation.") }
        let queuedHint = "`nexusctl queue flush` (or the next online command) delivers what is queued."

        switch result.end {
        case .refused(let line, let problem):
            throw .badText("stdin line \(line): \(problem)",
                         hint: result.queued == 0 ? "nothing was queued." : "the \(result.queued) line(s) that came before it are queued; nothing from it on was read.")
        case .full(let line, let error):
            var full = CLIError(error)
            full.message = "stdin line \(line): \(full.message)"
            if result.queued > 0 { full.message += "; the \(result.queued) line(s) before it are queued" }
            throw full
        case .interrupted:
            if !result.stillQueued.isEmpty { output.note("\(result.stillQueued.count) message(s) still queued; \(queuedHint)") }
            // Ends the process by the signal that arrived, as it would have without us.
            TerminationGuard.release()
            return .unavailable
        case .failed:
            if let failed = result.failed { try throwIfAnyFailed([failed], report, context) }
            if let refusal = OutboxSending.refusal(of: nil, report, context) { throw refusal }
            throw CLIError(.auth, DeliveryText.auth, hint: "run `nexusctl login <email>`; the lines read are queued.")
        case .endOfInput:
            if result.queued == 0 { throw .usage("--each-line found no lines on stdin") }
        }
        if !result.stillQueued.isEmpty { return try OutboxSending.stillQueued(report, context, delivers: "what is queued") }
        return .ok
    }
}

/// A switch an escaping closure can set.
private final class Latch: @unchecked Sendable {
    var value = false
}
