import NexusCore

enum HistoryCommand {
    static let before = Value("before", "SEQ|id:ID|TIME", help: "messages before this seq, message id or time")
    static let limit = Value("limit", "N", help: "messages a page, 1 to 500 (default 50)")
    static let after = Value("after", "SEQ|id:ID|TIME", help: "messages after this seq, from this message id or time, oldest first")
    static let all = Flag("all", help: "the whole conversation, oldest to newest")
    static let read = Flag("read", help: "mark what it prints as read (`mark-read = yes` in the config does it always)")

    static let spec = CommandSpec(
        name: "history", summary: "Page through a conversation, 50 messages at a time",
        usage: [
            "<conversation> [--before SEQ|id:ID|TIME] [--limit N]", "<conversation> --after SEQ|id:ID|TIME [--limit N]",
            "<conversation> --all [--after SEQ|id:ID|TIME]",
        ],
        details: """
            \(Conversations.argumentHelp)
            Each page prints oldest to newest and ends with the command for the next older page,
            or "No more messages" at the start of the conversation. On a terminal, a direct
            conversation opens with the other person's state: "Bob · Online", or "Bob · Last seen
            2h ago".

            --before takes a seq (`--before 451`: messages 401 to 450 with the default limit),
            a message id (`--before id:4711`), or an ISO-8601 time (`--before 2026-11-21T18:00:00Z`,
            or a date: `--before 2026-11-21`).

            --after pages forward instead, for a script that keeps its own place: `--after 4711`
            prints seqs 4712 to 4761 and ends with the command for the next newer page, or "No newer
            messages". `--after id:ID` starts at that message; `--after TIME` at the first message
            sent at or after it.

            --all prints the whole conversation (or, with --after, everything since) oldest to
            newest, page by page, in constant memory: the way to export one.

            Pages already in the local cache, with no gaps, are answered without the network.
            When the server can't be reached, the cache answers and says so. So it does for someone
            removed from a group (or who left it): the server says "not found", and they see what
            their cache kept, with a warning (`"notAMember": true` in --json).
            With --json: {"messages": [...], "hasMore": bool, "next": seq or null} (for --after,
            `next` is the seq to pass to the next --after); with --all, one message a line (NDJSON),
            oldest first.

            Your own messages still in the outbox (queued while the server was down, or failed)
            follow the newest page's messages, as they would appear in a chat: "12/…  [sending…]
            You: text  · Sending (localId 3f2a9c1e)". Once sent, each shows once, with its seq.
            In --json they are not messages (they have no seq yet): the newest page lists them
            under "queued", each with "state": "queued" and its localId (docs/json.md); --all's
            NDJSON leaves them out (`nexusctl queue --json` lists them).

            As in all text output, control and invisible characters that others wrote are shown
            escaped (\\e, \\r, \\x7f, \\u{202e}: see docs/output.md), and each further line of a
            multi-line message starts with "│ ". --json prints every text exactly as it was sent.
            """,
        options: [before, limit, after, all, read],
        arguments: 1...1,
        requirements: [.session],
        jsonFields: messageFields,
        examples: [
            ("nexusctl history 3 --before 451", "the 50 messages before seq 451"),
            ("nexusctl history bob@example.com --all --json > chat.ndjson", "export a whole conversation, oldest first"),
            ("nexusctl history 12 --after 4711 --all --json", "everything since seq 4711"),
        ],
        run: run)

    /// A Message line's fields, as docs/json.md lists them, for --fields of `history` and `tail`.
    static let messageFields = [
        "type", "ref", "id", "conversationId", "seq", "senderId", "sender", "senderName", "localId", "text", "sentAt", "replyTo", "editedAt",
        "deletedAt", "reactions", "attachments", "status", "statusText", "membership",
    ]

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let me = try context.me()
        let limit = try context.intOption(Self.limit, default: Limits.defaultPageSize, range: 1...Limits.maxPageSize)
        let all = context.invocation[Self.all]
        let anchor = try context.invocation[before].map { text throws(CLIError) in try parseAnchor(text, option: "before") }
        let after = try context.invocation[Self.after].map { text throws(CLIError) in try parseAnchor(text, option: "after") }
        if all && anchor != nil { throw .usage("--all pages through the whole conversation; it takes no --before (--after starts it later)") }
        if after != nil && anchor != nil { throw .usage("give --before or --after, not both") }

        let conversationId = try Conversations.resolve(context.arguments[0], context)
        let forward = all || after != nil
        let printer = HistoryPrinter(context: context, me: me, conversationId: conversationId, limit: limit, all: all, forward: forward)
        printer.markRead = context.invocation[read] || context.config.markRead
        printer.endsAtNewest = anchor == nil
        ChatHeader.show(conversationId: conversationId, me: me.id, context: context)
        let reading = try context.reading()
        do throws(ReadError) {
            if forward {
                try reading.historyForward(conversationId, after: after, limit: limit, all: all, onPage: printer.print)
            } else {
                try reading.history(conversationId, before: anchor, limit: limit, all: false, onPage: printer.print)
            }
        } catch {
            switch error {
            case .api(.server(404, "message_not_found", let message, _)):
                throw .usage(message, hint: "id: takes the id of a message in this conversation (`nexusctl history --json` shows them).")
            case .cacheCannotAnswer(let error):
                throw CLIError(.unavailable, "\(error)", hint: "offline, --before and --after take a seq; the cache can't look up ids or times.")
            default:
                throw context.failure(error)
            }
        }
        return .ok
    }

    static func parseAnchor(_ text: String, option: String) throws(CLIError) -> NexusAPI.Anchor {
        if let seq = Int64(text) {
            guard seq >= (option == "after" ? 0 : 1) else { throw .usage("--\(option) takes a seq of 1 or more; got '\(text)'") }
            return .seq(seq)
        }
        if text.hasPrefix("id:") {
            guard let id = Int64(text.dropFirst(3)), id >= 1 else { throw .usage("--\(option) id: takes a message id; got '\(text)'") }
            return .messageId(id)
        }
        if let time = Timestamp(iso8601: text) { return .time(time) }
        throw .usage(
            "--\(option) takes a seq, id:<message id> or an ISO-8601 time; '\(text)' is none of them",
            hint: "for example --\(option) 451, --\(option) id:4711 or --\(option) 2026-11-21T18:00:00Z")
    }

    struct PageView: Encodable {
        var messages: [MessageLine]
        var hasMore: Bool
        var next: Int64?
        var offline: Bool?
        /// Removed from the group, or left: the page is the cache's.
        var notAMember: Bool?
        /// On the newest page: my messages still in the outbox, which have no seq yet.
        var queued: [QueuedLines.View]?

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(messages, forKey: .messages)
            try c.encode(hasMore, forKey: .hasMore)
            try c.encode(next, forKey: .next)  // null rather than absent: scripts test it
            try c.encodeIfPresent(offline, forKey: .offline)
            try c.encodeIfPresent(notAMember, forKey: .notAMember)
            try c.encodeIfPresent(queued, forKey: .queued)
        }

        enum CodingKeys: String, CodingKey { case messages, hasMore, next, offline, notAMember, queued }
    }
}
