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
        let me = try context.requireSession().user
        let limit = try context.intOption("limit", default: Limits.defaultPageSize, range: 1...Limits.maxPageSize)
        let all = context.invocation.flag("all")
        var anchor = try context.invocation.value("before").map { text throws(CLIError) in try parseAnchor(text) }
        if all && anchor != nil { throw .usage("--all pages through the whole conversation; it takes no --before") }

        let conversationId = try conversation(context)
        let reader = PageReader(context: context, conversationId: conversationId)
        let names = Names(context: context, me: me, conversationId: conversationId)
        let output = context.output
        var first = true
        while true {
            let page = try reader.page(before: anchor, limit: limit)
            let next = page.hasMore ? page.messages.first?.seq : nil
            if page.fromServer {
                if first { names.refresh(conversationId) }
                names.reporter.stored(page.messages)
            }
            if output.json {
                if all {
                    for m in page.messages { output.record(names.jsonLine(m)) }
                } else {
                    output.document(PageView(
                        messages: page.messages.map(names.jsonLine),
                        hasMore: page.hasMore, next: next, offline: page.offline ? true : nil),
                        items: "messages")
                }
            } else {
                for m in page.messages { output.line(names.line(m)) }
                if !all || next == nil {
                    if let next {
                        output.line(output.paint("Older: nexusctl history \(context.arguments[0]) --before \(next)\(limit == Limits.defaultPageSize ? "" : " --limit \(limit)")", .dim))
                    } else {
                        output.line(output.paint("No more messages", .dim))
                    }
                }
            }
            if first && page.offline { context.output.warn("offline (\(page.offlineReason ?? "server unreachable")); showing cached messages") }
            if let gap = page.gap { context.output.warn("\(gap)") }
            first = false
            guard all, let next else { return .ok }
            anchor = .seq(next)
        }
    }

    /// The conversation id; offline, an email resolves only through the profile's map.
    private static func conversation(_ context: CommandContext) throws(CLIError) -> Int64 {
        let argument = context.arguments[0]
        if let id = try Conversations.localId(for: argument, profile: context.profile) { return id }
        return try Conversations.resolve(argument, context)
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

/// Reads pages from the cache when it holds them whole, else from the server (caching
/// what comes back), else from the cache, saying it is offline.
struct PageReader {
    let context: CommandContext
    let conversationId: Int64

    struct Page {
        var messages: [Message]
        var hasMore: Bool
        var offline = false
        var offlineReason: String?
        var gap: String?
        var fromServer = false
    }

    func page(before anchor: NexusAPI.Anchor?, limit: Int) throws(CLIError) -> Page {
        let cache = MessageCache(profile: context.profile)
        // Only a page below a known seq can be complete in the cache: the newest page
        // needs the server to say what is newest.
        if case .seq(let seq) = anchor {
            do {
                let cached = try cache.page(conversationId, before: seq, limit: limit)
                if cached.complete { return Page(messages: cached.messages, hasMore: cached.hasMore) }
            } catch {
                context.output.warn("could not read the local cache: \(error)")
            }
        }
        let api = try context.api()
        do throws(APIError) {
            let page = try api.messages(conversationId: conversationId, before: anchor, limit: limit)
            Cache.remember(page.messages, context)
            return Page(messages: page.messages, hasMore: page.hasMore, fromServer: true)
        } catch {
            switch error {
            case .server(404, "message_not_found", let message, _):
                throw .usage(message, hint: "--before id: takes the id of a message in this conversation (`nexusctl history --json` shows them).")
            case _ where error.isNetwork:
                break
            default:
                throw context.failure(error)
            }
            var before: Int64?
            switch anchor {
            case .seq(let seq): before = seq
            case nil: before = nil
            case .messageId, .time:
                throw CLIError(.unavailable, "\(error)", hint: "offline, --before takes a seq; the cache can't look up ids or times.")
            }
            let cached: MessageCache.Page
            do { cached = try cache.page(conversationId, before: before, limit: limit) } catch { throw CLIError(error) }
            var page = Page(messages: cached.messages, hasMore: cached.hasMore, offline: true, offlineReason: "\(error)")
            if !cached.complete && !cached.messages.isEmpty {
                page.gap = "the cache lacks some messages of this page; they will be fetched when the server is back"
            }
            return page
        }
    }
}

/// Sender names and my messages' statuses for printing a conversation: from the cached
/// conversation, refreshed from the server once the server has answered for a page.
final class Names {
    let context: CommandContext
    let me: User
    let reporter: DeliveryReporter
    private var people: [Int64: User] = [:]
    private let book: ReceiptBook

    init(context: CommandContext, me: User, conversationId: Int64) {
        self.context = context
        self.me = me
        self.reporter = DeliveryReporter(context: context, me: me.id)
        self.book = ReceiptBook(me: me.id)
        let cache = ConversationCache(profile: context.profile)
        people = cache.people()
        if let c = cache.conversation(conversationId) { learn(c, conversationId) }
        people[me.id] = me
    }

    func refresh(_ conversationId: Int64) {
        guard let fetched = try? context.api().conversation(conversationId) else { return }
        Cache.remember(conversations: [fetched], context)
        learn(fetched, conversationId)
    }

    private func learn(_ c: Conversation, _ shown: Int64) {
        for u in c.members where u.id != me.id { people[u.id] = u }
        if c.id == shown { book.learn(c) }
    }

    func jsonLine(_ m: Message) -> MessageLine {
        let status = book.status(of: m)
        return MessageLine(message: m, sender: people[m.senderId]?.email, status: status?.status, statusText: status?.label)
    }

    func line(_ m: Message) -> TerminalText {
        let name = m.senderId == me.id ? "You" : people[m.senderId]?.displayName ?? "user \(m.senderId)"
        let output = context.output
        let body = TerminalText.body(m.text, continuation: output.paint(TerminalText.continuation(indent: 14), .dim))
        let suffix = book.status(of: m).map { output.paint("  · \($0.label)", .dim) } ?? ""
        let prefix = output.paint("\("\(m.seq)".padding(6))[\(LocalTime.short(m.sentAt))]", .dim)
        return "\(prefix) \(output.paint(TerminalText(name), .bold)): \(body)\(suffix)"
    }
}
