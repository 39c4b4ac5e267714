import NexusCore

enum SendCommand {
    static let eachLine = Flag("each-line", help: "send every line of stdin as its own message, as each arrives")
    static let replyTo = Value("reply-to", "MESSAGE", help: "answer this message (CONVERSATION/SEQ)")
    static let file = Values("file", "path", help: "attach a file (repeatable); '-' reads it from stdin")
    static let name = Value("name", "name", help: "the name of the file read from stdin with --file -")

    static let spec = CommandSpec(
        name: "send", summary: "Send a message; it is queued safely first, so nothing is lost offline",
        usage: [
            "<conversation> <text>...", "<conversation> -", "<conversation> --each-line", "<conversation> --reply-to <message> <text>...",
            "<conversation> --file <path> [--file <path>...] [<caption>...]",
        ],
        details: """
            \(Conversations.argumentHelp)
            The words of <text> are joined with spaces. With '-' all of stdin is one message; with
            --each-line every line of stdin is a message of its own, in order (blank lines are skipped).
            With --file the words are the caption (it may be left out) and each file is attached: it
            is hashed (SHA-256) now, and uploaded in chunks that resume where they stopped; a file
            that changes or goes away before it is uploaded fails the message. `--file -` reads the
            file from stdin into the profile's folder first, and needs --name. See docs/attachments.md.

            --each-line streams: a pipe that never ends (`tail -f log | nexusctl send ops@example.com --each-line`)
            has each line queued as it arrives and sent at once, lines that arrive together in one
            request, over one kept-alive connection. While the server can't be reached, lines keep
            being queued and are sent when it is back. SIGINT or SIGTERM queues every line read
            (a last line without its newline too) before the process ends. A line that can't be a
            message (a NUL, too long) stops the stream with exit 2; nothing that arrived with it is
            queued, the lines before it are. Each message's status is printed once, when it is
            sent, or at the end while it still waits; with --json, a list written as it grows.
            While it runs you count as online; at the end of its input, or on SIGINT or SIGTERM, it
            tells the server, and you are offline at once.

            Messages are written to the profile's outbox, and synced to disk, before anything is sent;
            earlier queued messages of the same conversation go first (a message queued to an email
            counts as that person's direct conversation). Text with a NUL character is refused; bytes
            that are not valid UTF-8 are sent as U+FFFD, with a warning naming the line (docs/messages.md).
            With --reply-to the message answers an earlier one, named CONVERSATION/SEQ (as `tail` and
            `history` print it) in the same conversation; `history` and `tail` quote its first line.
            Prints "<status> <localId>" for each message, and "<conversation>/<seq>" once sent. Exit status: 0 sent; 75 queued (the server
            could not be reached or is busy: `nexusctl queue flush` delivers it later); 1 failed;
            2 usage error (nothing is queued); 3 no such conversation; 4 not logged in (a refusal
            other than of the credentials, 1 or 3, keeps nothing in the outbox);
            6 the outbox is full ("Offline queue is full": `queue-limit` in the config, 10,000 by default; nothing is queued).
            """,
        options: [eachLine, replyTo, file, name],
        arguments: 1...Int.max,
        requirements: [.session],
        jsonFields: ["localId", "ref", "status", "conversationId", "message", "error", "nextAttemptAt"],
        examples: [
            ("nexusctl send bob@example.com \"build finished\"", "send one message"),
            ("make test 2>&1 | tail -5 | nexusctl send 3 -", "send a command's output as one message"),
            ("tail -n 20 alerts.log | nexusctl send ops@example.com --each-line", "one message a line, in order"),
            ("nexusctl send 12 --reply-to 12/345 \"on it\"", "answer message 345 of conversation 12"),
            ("nexusctl send ops@example.com --file graph.png \"disk at 95%\"", "a file with a caption"),
            ("pg_dump app | nexusctl send 3 --file - --name app.sql", "a file from stdin"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        if !context.invocation[file].isEmpty { return try SendFiles.run(context) }
        if context.invocation[name] != nil { throw .usage("--name names the file of --file -; give --file - too") }
        let target = context.arguments[0]
        if context.invocation[eachLine] { return try streamLines(context, target: target) }
        // Every check that can fail as a usage error comes before the outbox is touched.
        let (texts, warning) = try readTexts(context)
        let conversationId = try Conversations.localId(for: target, profile: context.profile)
        let replyTo = try context.invocation[Self.replyTo].map { text throws(CLIError) in
            let ref = try MessageArgument.parse(text, option: "--reply-to")
            guard ref.conversationId == conversationId else {
                throw CLIError.usage(
                    "--reply-to \(ref) is in conversation \(ref.conversationId), not in \(target)",
                    hint: "a reply goes to the message's own conversation: `nexusctl send \(ref.conversationId) --reply-to \(ref) TEXT`.")
            }
            return ref.seq
        }
        let sending = try OutboxSending.sending(context)
        let mine: [OutboxEntry]
        let outcome: Sending.Outcome
        do {
            (mine, outcome) = try sending.send(texts, conversationId: conversationId, to: target, replyTo: replyTo, lock: OutboxSending.waitingLock(context, what: "the message"))
        } catch {
            throw CLIError(error)
        }
        if let warning { context.output.warn("\(warning)") }
        return try finish(mine, outcome, context, warning: warning)
    }

    /// Prints what became of the messages just queued, and returns the exit code they earn.
    static func finish(
        _ mine: [OutboxEntry], _ outcome: Sending.Outcome, _ context: CommandContext, warning: String? = nil
    ) throws(CLIError) -> ExitCode {
        let report = OutboxSending.warnings(outcome, context).report
        let ids = Set(mine.map(\.localId))
        let verdicts = report.verdicts(of: mine)
        let views = SendView.views(verdicts, warnings: warning.map { w in Dictionary(uniqueKeysWithValues: mine.map { ($0.localId, w) }) } ?? [:])
        let output = context.output
        if output.json {
            if views.count == 1 { output.document(views[0]) } else { output.document(views) }
        } else {
            for v in views { output.line("\(v.line)") }
        }
        let earlier = report.sent.filter { !ids.contains($0.entry.localId) }.count
        if earlier > 0 { output.note("Also delivered \(earlier) earlier queued message(s) of this conversation.") }
        try throwIfAnyFailed(verdicts, report, context)
        if let dropped = views.first(where: { $0.status == .dropped }) {
            throw CLIError(.failure, "message \(dropped.localId) was dropped with `nexusctl queue drop` before it was sent")
        }
        try OutboxSending.throwIfCredentialsRefused(report, context, what: "the message")
        if views.contains(where: { $0.status == .queued }) { return try OutboxSending.stillQueued(report, context) }
        return .ok
    }

    /// The first of the messages that failed, as the command's error.
    static func throwIfAnyFailed(_ verdicts: [DeliveryVerdict], _ report: DeliveryReport, _ context: CommandContext) throws(CLIError) {
        for verdict in verdicts {
            guard case .failed(let failure) = verdict.kind else { continue }
            let unknownAddress = failure == .notFound && verdict.entry.conversationId == nil
            throw OutboxSending.failure(
                failure, of: verdict.entry, report, context,
                hint: unknownAddress ? "check the address; `nexusctl users --search NAME` finds people on the server." : nil)
        }
    }

    /// The message, and where bytes that are not valid UTF-8 were replaced in it.
    private static func readTexts(_ context: CommandContext) throws(CLIError) -> (texts: [String], warning: String?) {
        let words = Array(context.arguments.dropFirst())
        var texts: [String]
        let warning: String?
        if words == ["-"] {
            let bytes = context.terminal.readAllInput()
            var text = String(decoding: bytes, as: UTF8.self)
            while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
            texts = [text]
            warning = InvalidUTF8.warning("stdin", lines: InvalidUTF8.lines(in: bytes))
        } else if words.isEmpty {
            throw CLIError(ParseError.missingArgument(command: "send", usage: spec.usage[0]))
        } else {
            texts = [words.joined(separator: " ")]
            let given = words.map { context.replacedArguments[$0] ?? Array($0.utf8) }
            warning = context.replacedArguments.isEmpty
                ? nil : InvalidUTF8.warning("command-line text", lines: InvalidUTF8.lines(in: Array(given.joined(separator: [32]))))
        }
        // Checked before it is queued: bad input queues nothing.
        if let problem = Limits.problem(withText: texts[0]) { throw .badText(problem) }
        return (texts, warning)
    }
}
