import NexusCore

/// Prints `history` pages as they are read: sender names and my messages' statuses from
/// the cached conversation, refreshed from the server once the server has answered for
/// a page; what it prints from the server counts as delivered to me.
final class HistoryPrinter {
    let context: CommandContext
    let me: User
    let conversationId: Int64
    let limit: Int
    let all: Bool
    private let reporter: ReceiptReporter
    private var people: [Int64: User] = [:]
    private let book: ReceiptBook
    private var first = true

    init(context: CommandContext, me: User, conversationId: Int64, limit: Int, all: Bool) {
        self.context = context
        self.me = me
        self.conversationId = conversationId
        self.limit = limit
        self.all = all
        self.reporter = ReceiptReporter(api: try? context.api(), me: me.id)
        self.book = ReceiptBook(me: me.id)
        let cache = ConversationCache(profile: context.profile)
        people = cache.people()
        if let c = cache.conversation(conversationId) { learn(c) }
        people[me.id] = me
    }

    func print(_ fetched: Fetched<Reading.Page>) {
        context.warn(fetched.cacheProblems)
        let page = fetched.value
        if fetched.fromServer {
            if first { refresh() }
            reporter.stored(page.messages)
        }
        let output = context.output
        if output.json {
            if all {
                for m in page.messages { output.record(jsonLine(m)) }
            } else {
                output.document(
                    HistoryCommand.PageView(
                        messages: page.messages.map(jsonLine), hasMore: page.hasMore, next: page.next,
                        offline: fetched.offlineReason != nil ? true : nil),
                    items: "messages")
            }
        } else {
            for m in page.messages { output.line(line(m)) }
            if !all || page.next == nil {
                if let next = page.next {
                    output.line(output.paint("Older: nexusctl history \(context.arguments[0]) --before \(next)\(limit == Limits.defaultPageSize ? "" : " --limit \(limit)")", .dim))
                } else {
                    output.line(output.paint("No more messages", .dim))
                }
            }
        }
        if first, let reason = fetched.offlineReason { output.warn("offline (\(reason)); showing cached messages") }
        if !page.complete { output.warn("the cache lacks some messages of this page; they will be fetched when the server is back") }
        first = false
    }

    private func refresh() {
        guard let fetched = try? context.reading().conversation(conversationId) else { return }
        context.warn(fetched.cacheProblems)
        learn(fetched.value)
    }

    private func learn(_ c: Conversation) {
        for u in c.members where u.id != me.id { people[u.id] = u }
        if c.id == conversationId { book.learn(c) }
    }

    func jsonLine(_ m: Message) -> MessageLine {
        let status = book.status(of: m)
        return MessageLine(message: m, sender: people[m.senderId]?.email, status: status?.status, statusText: status?.label)
    }

    func line(_ m: Message) -> TerminalText {
        let name = m.senderId == me.id ? "You" : people[m.senderId]?.displayName ?? "user \(m.senderId)"
        let output = context.output
        let body = TerminalText.body(AttachmentText.body(m), continuation: output.paint(TerminalText.continuation(indent: 14), .dim))
        let suffix = book.status(of: m).map { output.paint("  · \($0.label)", .dim) } ?? ""
        let prefix = output.paint("\("\(m.seq)".padding(6))[\(LocalTime.short(m.sentAt))]", .dim)
        return "\(prefix) \(output.paint(TerminalText(name), .bold)): \(body)\(suffix)"
    }
}
