import NexusCore

/// `download CONVERSATION/SEQ`: a message's attachment, verified, to a file or stdout.
enum DownloadCommand {
    static let out = Value("out", short: "o", "file", help: "where to save it; '-' for stdout")
    static let index = Value("index", "n", help: "which attachment, counting from 1")
    static let force = Flag("force", help: "replace an existing file")

    static let spec = CommandSpec(
        name: "download", summary: "Save a message's attachment, checked against its SHA-256",
        usage: ["<conversation>/<seq> [--out <file>|-] [--index <n>] [--force]"],
        details: """
            <conversation>/<seq> names the message, as `tail` and `history` show it (e.g. 12/345).
            The file is streamed from the server through SHA-256: it is written under a temporary
            name beside the destination, synced, checked, and only then given its name, so a
            broken or wrong download leaves nothing behind (a part file that a killed download left
            is removed by the next one, which starts over: the server sends a file only whole). By default it is saved in the current
            folder under the name the sender gave, with each control, bidi or other invisible
            character in it made `_` (the real name is said on stderr); an existing file is never replaced without
            --force. With `--out -` the bytes go to stdout, and a wrong hash is reported at the end
            (exit 1). A message with several files saves them all, unless --index picks one.
            Prints the path saved. Exit status: 0 saved; 1 exists, or the bytes did not match;
            3 no such message or attachment (or not yours to see); 75 the server is unreachable.
            """,
        options: [out, index, force],
        arguments: 1...1,
        requirements: [.session],
        jsonFields: ["path", "name", "size", "type", "sha256"],
        examples: [
            ("nexusctl download 12/345", "save the file of message 345 in conversation 12"),
            ("nexusctl download 12/345 --out - | tar x", "stream it to another program"),
        ],
        run: run)

    struct Saved: Encodable {
        var path: String
        var name: String
        var size: Int64
        var type: String
        var sha256: String
    }

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let (conversationId, seq) = try parseReference(context.arguments[0])
        let out = context.invocation[Self.out]
        let force = context.invocation[Self.force]
        let index: Int? = context.invocation[Self.index] == nil ? nil : try context.intOption(Self.index, default: 1, range: 1...Limits.maxAttachments)
        let api = try context.api()
        let page: MessagesPage
        do { page = try api.messages(conversationId: conversationId, before: .seq(seq.saturatingAdd(1)), limit: 1) } catch { throw context.failure(error) }
        guard let message = page.messages.first, message.seq == seq else {
            throw CLIError(.notFound, "no message \(conversationId)/\(seq)", hint: "`nexusctl history \(conversationId)` lists its messages.")
        }
        let attachments = message.attachments ?? []
        guard !attachments.isEmpty else { throw CLIError(.notFound, "message \(conversationId)/\(seq) has no attachment") }
        if let index, index > attachments.count {
            throw CLIError(.notFound, "message \(conversationId)/\(seq) has \(attachments.count) attachment(s), not \(index)")
        }
        let chosen = index.map { [$0 - 1] } ?? Array(attachments.indices)
        if chosen.count > 1 && out != nil {
            throw .usage("message \(conversationId)/\(seq) has \(chosen.count) files; pick one with --index to use --out")
        }
        var saved: [Saved] = []
        for i in chosen {
            let a = attachments[i]
            var download = Download(api: api, conversationId: conversationId, seq: seq, index: i, attachment: a)
            let bar = out == "-" && !context.terminal.errorIsTerminal ? nil : ProgressBar.make(context, label: "📎 \(a.name)")
            download.onProgress = bar.map { bar in { bar.update($0, of: $1) } }
            do {
                if out == "-" {
                    try download.stream(into: 1)
                } else {
                    let path = out ?? savedName(a.name, context)
                    for leftover in try download.save(to: path, force: force) {
                        context.output.note(
                            "removed \(leftover.path) (\(LocalFile.humanSize(leftover.size))), left by a download that was stopped; the server sends a file only whole, so this one started over")
                    }
                    saved.append(Saved(path: path, name: a.name, size: a.size, type: a.type, sha256: a.sha256))
                }
            } catch {
                bar?.finish()
                throw failure(error, context)
            }
            bar?.finish()
        }
        if out == "-" { return .ok }
        if context.output.json {
            if saved.count == 1 { context.output.document(saved[0]) } else { context.output.document(saved) }
        } else {
            for s in saved { context.output.line(TerminalText(s.path)) }
        }
        return .ok
    }

    /// The sender's name as a file name (`TerminalText.fileName`), said on stderr when it
    /// differs, with the real name escaped as everywhere else.
    static func savedName(_ name: String, _ context: CommandContext) -> String {
        let safe = TerminalText.fileName(name)
        if safe != name {
            context.output.note("the file is named \(name), with characters that hide or reorder text; saved as \(safe)")
        }
        return safe
    }

    private static func failure(_ error: DownloadFailure, _ context: CommandContext) -> CLIError {
        switch error {
        case .api(let e): return context.failure(e)
        case .store(let e): return CLIError(e)
        case .exists(let path): return CLIError(.failure, "\(path) exists; nothing was written", hint: "add --force to replace it, or --out another name.")
        case .mismatch: return CLIError(.failure, "download failed the check: \(error)", hint: "nothing was saved; try again.")
        }
    }

    /// `CONVERSATION/SEQ`, read as MessageReference reads it everywhere else.
    static func parseReference(_ text: String) throws(CLIError) -> (Int64, Int64) {
        guard let reference = MessageReference(text) else {
            throw .usage("'\(text)' is not a message", hint: "name a message as <conversation>/<seq>, such as 12/345 (`nexusctl history` shows them).")
        }
        return (reference.conversationId, reference.seq)
    }
}
