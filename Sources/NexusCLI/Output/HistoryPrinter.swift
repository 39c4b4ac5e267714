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
    /// Pages go forward (--after, --all): the next page is a newer one.
    let forward: Bool
    /// --read: what is printed is marked read, also when the cache answered.
    var markRead = false
    /// The pages reach the newest message (no --before): my queued messages follow them.
    var endsAtNewest = false
    private let reporter: ReceiptReporter
    private var people: [Int64: User] = [:]
    private let book: ReceiptBook
    private var first = true

    init(context: CommandContext, me: User, conversationId: Int64, limit: Int, all: Bool, forward: Bool) {
        self.context = context
        self.me = me
        self.conversationId = conversationId
        self.limit = limit
        self.all = all
        self.forward = forward
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
        let next = forward ? (page.hasMore ? page.messages.last?.seq : nil) : page.next
        if fetched.fromServer {
            if first { refresh() }
        }
        if fetched.fromServer || markRead { reporter.stored(page.messages, read: markRead) }
        let output = context.output
        let queued = endsAtNewest && (forward ? !page.hasMore : first) ? queuedEntries(after: page.messages) : []
        if output.json {
            if all {
                for m in page.messages { output.record(jsonLine(m)) }
            } else {
                output.document(
                    HistoryCommand.PageView(
                        messages: page.messages.map(jsonLine), hasMore: page.hasMore, next: next,
                        offline: fetched.offlineReason != nil ? true : nil,
                        notAMember: fetched.fromFormerMembership ? true : nil,
                        queued: queued.isEmpty ? nil : queued.map { QueuedLines.View($0, me: me) }),
                    items: "messages")
            }
        } else {
            let cache = MessageCache(profile: context.profile)
            for m in page.messages {
                output.line(line(m))
                if let quote = MessageDecor.quote(
                    m, original: MessageDecor.original(of: m, in: page.messages, cache: cache), name: name, output: output)
                {
                    output.line(TerminalText(String(repeating: " ", count: 14)) + quote)
                }
            }
            for e in queued { output.line(QueuedLines.line(e, output: output)) }
            if !all || next == nil {
                let limitFlag = limit == Limits.defaultPageSize ? "" : " --limit \(limit)"
                if let next {
                    let command = forward ? "Newer: nexusctl history \(context.arguments[0]) --after \(next)" : "Older: nexusctl history \(context.arguments[0]) --before \(next)"
                    output.line(output.paint("\(command)\(limitFlag)", .dim))
                } else {
                    output.line(output.paint(forward && !all ? "No newer messages" : "No more messages", .dim))
                }
            }
        }
        if first, let reason = fetched.offlineReason { output.offline("\(reason); showing cached messages") }
        if first, fetched.fromFormerMembership {
            output.warn("you are no longer a member of this conversation; showing what your cache kept from when you were")
        }
        if !page.complete { output.warn("the cache lacks some messages of this page; they will be fetched when the server is back") }
        first = false
    }

    /// My queued messages for this conversation, but for any the page already has from the server.
    private func queuedEntries(after messages: [Message]) -> [OutboxEntry] {
        QueuedLines.entries(conversationId, except: Set(messages.lazy.filter { $0.senderId == self.me.id }.map(\.localId)), context)
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
        let status = m.membership == nil ? book.status(of: m) : nil
        return MessageLine(message: m, sender: people[m.senderId], status: status?.status, statusText: status?.label)
    }

    private func name(_ id: Int64) -> String { id == me.id ? "You" : people[id]?.shownName ?? "user \(id)" }

    func line(_ m: Message) -> TerminalText {
        let name = self.name(m.senderId)
        let output = context.output
        if let event = m.membership {
            return MembershipText.line(m, event, prefix: "\("\(m.reference)".padding(6))[\(LocalTime.short(m.sentAt))] ", output: output, viewer: me.id) { id in
                people[id]?.shownName
            }
        }
        let body = MessageDecor.body(m, continuation: output.paint(TerminalText.continuation(indent: 14), .dim), output: output)
        let suffix = MessageDecor.suffix(m, output: output) + (book.status(of: m).map { output.paint("  · \($0.label)", .dim) } ?? "")
        let prefix = output.paint("\("\(m.reference)".padding(6))[\(LocalTime.short(m.sentAt))]", .dim)
        return "\(prefix) \(output.paint(TerminalText(name), .bold)): \(body)\(suffix)"
    }
}
