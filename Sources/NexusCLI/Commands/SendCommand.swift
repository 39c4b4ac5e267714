import NexusCore

enum SendCommand {
    static let spec = CommandSpec(
        name: "send", summary: "Send a message; it is queued safely first, so nothing is lost offline",
        usage: ["<conversation> <text>...", "<conversation> -", "<conversation> --each-line"],
        details: """
            \(Conversations.argumentHelp)
            The words of <text> are joined with spaces. With '-' all of stdin is one message; with
            --each-line every line of stdin is a message of its own, in order (blank lines are skipped).

            --each-line streams: a pipe that never ends (`tail -f log | nexusctl send ops --each-line`)
            has each line queued as it arrives and sent at once, lines that arrive together in one
            request, over one kept-alive connection. While the server can't be reached, lines keep
            being queued and are sent when it is back. SIGINT or SIGTERM queues every line read
            (a last line without its newline too) before the process ends. A line that can't be a
            message (a NUL, too long) stops the stream with exit 2; nothing that arrived with it is
            queued, the lines before it are. Each message's status is printed once, when it is
            sent, or at the end while it still waits; with --json, a list written as it grows.

            Messages are written to the profile's outbox, and synced to disk, before anything is sent;
            earlier queued messages of the same conversation go first (a message queued to an email
            counts as that person's direct conversation). Text with a NUL character is refused.
            Prints "<status> <localId>" for each message. Exit status: 0 sent; 75 queued (the server
            could not be reached or is busy: `nexusctl queue flush` delivers it later); 1 failed;
            2 usage error (nothing is queued); 3 no such conversation; 4 not logged in.
            """,
        options: [OptionSpec("each-line", help: "send every line of stdin as its own message, as each arrives")],
        arguments: 1...Int.max,
        requirements: [.session],
        jsonFields: ["localId", "status", "conversationId", "message", "error", "nextAttemptAt"],
        examples: [
            ("nexusctl send bob@example.com \"build finished\"", "send one message"),
            ("make test 2>&1 | tail -5 | nexusctl send 3 -", "send a command's output as one message"),
            ("tail -n 20 alerts.log | nexusctl send ops@example.com --each-line", "one message a line, in order"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let target = context.arguments[0]
        if context.invocation.flag("each-line") { return try eachLine(context, target: target) }
        // Every check that can fail as a usage error comes before the outbox is touched.
        let texts = try readTexts(context)
        let conversationId = try Conversations.localId(for: target, profile: context.profile)
        let sending = try OutboxSending.sending(context)
        let mine: [OutboxEntry]
        let outcome: Sending.Outcome
        do {
            (mine, outcome) = try sending.send(texts, conversationId: conversationId, to: target, lock: .wait(onBusy: {
                // Another send or flush is delivering; only a person watching needs to hear it.
                guard context.terminal.errorIsTerminal else { return }
                context.output.note("Waiting for another delivery (a `queue flush` or `send`) to finish; the message is queued safely…")
            }))
        } catch {
            throw CLIError(error)
        }
        let report = OutboxSending.warnings(outcome, context).report
        let ids = Set(mine.map(\.localId))
        let views = SendView.views(mine, report)
        let output = context.output
        if output.json {
            if views.count == 1 { output.document(views[0]) } else { output.document(views) }
        } else {
            for v in views { output.line("\(v.status.rawValue) \(v.localId)") }
        }
        let earlier = report.sent.filter { !ids.contains($0.entry.localId) }.count
        if earlier > 0 { output.note("Also delivered \(earlier) earlier queued message(s) of this conversation.") }

        let failed = report.failed.filter { ids.contains($0.localId) }
        if let first = failed.first {
            throw CLIError(OutboxSending.failureCode(first, report), first.lastError ?? DeliveryText.other,
                           hint: report.authRefused ? "run `nexusctl login <email>`, then `nexusctl retry --all`."
                               : report.notFound.contains(first.localId) && first.conversationId == nil
                                   ? "check the address; `nexusctl users --search NAME` finds people on the server." : nil)
        }
        if views.contains(where: { $0.status == .queued }) {
            output.warn("\(report.stopReason ?? DeliveryText.network)")
            output.note("Queued safely in the outbox; `nexusctl queue flush` (or the next online command) delivers it.")
            if let security = report.transportSecurity { throw CLIError(security, server: try context.serverAddress()) }
            return .unavailable
        }
        return .ok
    }

    private static func readTexts(_ context: CommandContext) throws(CLIError) -> [String] {
        let words = Array(context.arguments.dropFirst())
        var texts: [String]
        if words == ["-"] {
            var text = String(decoding: context.terminal.readAllInput(), as: UTF8.self)
            while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
            texts = [text]
        } else if words.isEmpty {
            throw CLIError(ParseError.missingArgument(command: "send", usage: spec.usage[0]))
        } else {
            texts = [words.joined(separator: " ")]
        }
        // Checked before it is queued: bad input queues nothing.
        if let problem = Limits.problem(withText: texts[0]) { throw .usage(problem) }
        return texts
    }
}
