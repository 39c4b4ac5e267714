import NexusCore

enum HistoryCommand {
    static let spec = CommandSpec(
        name: "history", summary: "Page back through a conversation, 50 messages at a time",
        usage: ["<conversation> [--before SEQ|id:ID|TIME] [--limit N]", "<conversation> --all"],
        details: """
            \(Conversations.argumentHelp)
            Each page prints oldest to newest and ends with the command for the next older page,
            or "No more messages" at the start of the conversation.

            --before takes a seq (`--before 451`: messages 401 to 450 with the default limit),
            a message id (`--before id:4711`), or an ISO-8601 time (`--before 2026-11-21T18:00:00Z`,
            or a date: `--before 2026-11-21`).

            Pages already in the local cache, with no gaps, are answered without the network.
            When the server can't be reached, the cache answers and says so.
            With --json: {"messages": [...], "hasMore": bool, "next": seq or null}; with --all,
            one message a line (NDJSON), page by page from the newest.

            As in all text output, control and invisible characters that others wrote are shown
            escaped (\\e, \\r, \\x7f, \\u{202e}: see docs/output.md), and each further line of a
            multi-line message starts with "│ ". --json prints every text exactly as it was sent.
            """,
        options: [
            OptionSpec("before", .value(placeholder: "SEQ|id:ID|TIME"), help: "messages before this seq, message id or time"),
            OptionSpec("limit", .value(placeholder: "N"), help: "messages a page, 1 to 500 (default 50)"),
            OptionSpec("all", help: "the whole conversation, page by page"),
        ],
        arguments: 1...1,
        requirements: [.session],
        jsonFields: ["type", "id", "conversationId", "seq", "senderId", "sender", "localId", "text", "sentAt", "status", "statusText"],
        examples: [
            ("nexusctl history 3 --before 451", "the 50 messages before seq 451"),
            ("nexusctl history bob@example.com --all --json > chat.ndjson", "export a whole conversation"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let me = try context.me()
        let limit = try context.intOption("limit", default: Limits.defaultPageSize, range: 1...Limits.maxPageSize)
        let all = context.invocation.flag("all")
        let anchor = try context.invocation.value("before").map { text throws(CLIError) in try parseAnchor(text) }
        if all && anchor != nil { throw .usage("--all pages through the whole conversation; it takes no --before") }

        let conversationId = try Conversations.resolve(context.arguments[0], context)
        let printer = HistoryPrinter(context: context, me: me, conversationId: conversationId, limit: limit, all: all)
        let reading = try context.reading()
        do throws(ReadError) {
            try reading.history(conversationId, before: anchor, limit: limit, all: all, onPage: printer.print)
        } catch {
            switch error {
            case .api(.server(404, "message_not_found", let message, _)):
                throw .usage(message, hint: "--before id: takes the id of a message in this conversation (`nexusctl history --json` shows them).")
            case .cacheCannotAnswer(let error):
                throw CLIError(.unavailable, "\(error)", hint: "offline, --before takes a seq; the cache can't look up ids or times.")
            default:
                throw context.failure(error)
            }
        }
        return .ok
    }

    static func parseAnchor(_ text: String) throws(CLIError) -> NexusAPI.Anchor {
        if let seq = Int64(text) {
            guard seq >= 1 else { throw .usage("--before takes a seq of 1 or more; got '\(text)'") }
            return .seq(seq)
        }
        if text.hasPrefix("id:") {
            guard let id = Int64(text.dropFirst(3)), id >= 1 else { throw .usage("--before id: takes a message id; got '\(text)'") }
            return .messageId(id)
        }
        if let time = Timestamp(iso8601: text) { return .time(time) }
        throw .usage(
            "--before takes a seq, id:<message id> or an ISO-8601 time; '\(text)' is none of them",
            hint: "for example --before 451, --before id:4711 or --before 2026-11-21T18:00:00Z")
    }

    struct PageView: Encodable {
        var messages: [MessageLine]
        var hasMore: Bool
        var next: Int64?
        var offline: Bool?

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(messages, forKey: .messages)
            try c.encode(hasMore, forKey: .hasMore)
            try c.encode(next, forKey: .next)  // null rather than absent: scripts test it
            try c.encodeIfPresent(offline, forKey: .offline)
        }

        enum CodingKeys: String, CodingKey { case messages, hasMore, next, offline }
    }
}
