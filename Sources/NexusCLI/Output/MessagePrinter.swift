import NexusCore

/// Prints feed events as text lines or NDJSON, never the same message twice.
final class MessagePrinter {
    let context: CommandContext
    let me: User
    let showConversation: Bool
    var hook: Hook?
    var markRead = false
    var showReceipts = false
    var people: [Int64: User] = [:]
    /// Groups' names, for what names a message outside the lines (a notification).
    private(set) var groupNames: [Int64: String] = [:]
    private var printedSeq: [Int64: Int64] = [:]
    /// The localIds of my messages printed, so a queued one the server already has is not shown again.
    private(set) var printedLocalIds = Set<String>()
    /// People looked up once because the feed named them before any conversation did.
    var lookedUp = Set<Int64>()
    let book: ReceiptBook
    private let reporter: ReceiptReporter

    init(context: CommandContext, me: User, showConversation: Bool) {
        self.context = context
        self.me = me
        self.showConversation = showConversation
        self.book = ReceiptBook(me: me.id)
        self.reporter = ReceiptReporter(api: try? context.api(), me: me.id)
        people[me.id] = me
    }

    /// Learns the names of the people in the conversations being shown, and their receipts.
    func learn(_ members: Reading.Members) {
        for user in members.people where user.id != me.id { people[user.id] = user }
        for c in members.conversations {
            book.learn(c)
            if c.kind == .group { groupNames[c.id] = c.title(viewer: me.id) }
        }
    }

    private func learn(_ conversation: Conversation) {
        for user in conversation.members { people[user.id] = user }
        book.learn(conversation)
        if conversation.kind == .group { groupNames[conversation.id] = conversation.title(viewer: me.id) }
    }

    /// Learns the conversations a batch carries.
    func begin(_ events: [SyncEvent]) {
        for c in events.compactMap(\.conversation) { learn(c) }
    }

    /// One event as its line, if it has one (conversation changes have none). Called in feed
    /// order, so a receipt follows the message it covers.
    func print(_ event: SyncEvent) {
        if let change = event.change, event.type == .message {
            show(change: change, in: event.conversationId, now: event.message)
        } else if let m = event.message, event.type == .message {
            print(messages: [m])
        } else if let r = event.receipt, event.type == .receipt {
            show(receipt: r, in: event.conversationId)
        }
    }

    /// After the lines are out: tell the senders their messages arrived (or were read).
    func delivered(_ messages: [Message]) { reporter.stored(messages, read: markRead) }

    /// Runs the --exec hook for an incoming message not printed yet. Before the line, so a
    /// kill in between runs it again rather than never.
    func runHook(for message: Message) {
        guard let hook, message.senderId != me.id, message.deletedAt == nil else { return }
        if let printed = printedSeq[message.conversationId], message.seq <= printed { return }
        let sender = people[message.senderId]
        let status = book.status(of: message)
        hook.run(message, sender: sender, json: MessageLine(message: message, sender: sender, status: status?.status, statusText: status?.label).json())
    }

    /// The server's history changed (a restored database reuses seqs): what was printed
    /// says nothing about what comes next.
    func forgetPrinted() { printedSeq = [:] }

    private func show(receipt: Receipt, in conversationId: Int64) {
        book.apply(receipt, in: conversationId)
        // Your own marks move because you read; they are news to the others only.
        guard receipt.userId != me.id else { return }
        let who = people[receipt.userId]
        if context.output.json {
            context.output.record(ReceiptLine(conversationId: conversationId, receipt: receipt, user: who?.email))
        } else if showReceipts {
            let name = who?.shownName ?? "user \(receipt.userId)"
            let verb = receipt.kind == .read ? "read" : "received"
            context.output.line(context.output.paint(
                "\(showConversation ? "#\(conversationId) " : "")[\(LocalTime.short(receipt.at))] \(name) \(verb) up to \(conversationId)/\(receipt.seq)", .dim))
        }
    }

    /// Who is typing: on a terminal the status line, "Carol is typing…", rewritten in place
    /// as it changes; in JSON a typing record per announcement; nothing to a pipe.
    func show(typing active: [Typing], fresh: [Typing]) {
        let output = context.output
        if output.json {
            for t in fresh { output.record(TypingLine(typing: t, user: people[t.userId]?.email)) }
            return
        }
        let shown = active.map { t in
            TerminalText(showConversation ? "#\(t.conversationId) " : "") + TerminalText(people[t.userId]?.shownName ?? "user \(t.userId)") + " is typing…"
        }
        output.status(shown.isEmpty ? nil : output.paint(shown.dropFirst().reduce(shown[0]) { $0 + "  " + $1 }, .dim))
    }

    /// Who `userId` is, as far as the feed has told.
    func person(_ userId: Int64) -> User? { people[userId] }

    private func name(_ userId: Int64) -> String {
        userId == me.id ? "You" : people[userId]?.shownName ?? "user \(userId)"
    }

    /// A change to an earlier message, as an event line naming the message: "12/5 [10:02]
    /// Alice edited 12/5: new text", "… Bob reacted 👍 to 12/5". Printed once per event; the
    /// feed never repeats one.
    private func show(change: MessageChange, in conversationId: Int64, now message: Message?) {
        let output = context.output
        let ref = MessageReference(conversationId: conversationId, seq: change.seq)
        if output.json {
            output.record(ChangeLine(change: change, in: conversationId, message: message, user: people[change.userId]?.email))
            return
        }
        let what: TerminalText
        switch change.kind {
        case .edit:
            what = "edited \(ref): " + TerminalText.body(change.text ?? "", continuation: output.paint(TerminalText.continuation(indent: 4), .dim))
        case .delete: what = "deleted \(ref)"
        case .react: what = "reacted \(change.emoji ?? "") to \(ref)"
        case .unreact: what = "removed \(change.emoji ?? "") from \(ref)"
        }
        let prefix = "\(ref) [\(LocalTime.short(change.at))] "
        output.line("\(output.paint(TerminalText(prefix), .dim))\(output.paint(TerminalText(name(change.userId)), .bold)) \(what)")
    }

    func print(messages: [Message]) {
        guard !messages.isEmpty else { return }
        for message in messages {
            if let printed = printedSeq[message.conversationId], message.seq <= printed { continue }
            printedSeq[message.conversationId] = message.seq
            if message.senderId == me.id { printedLocalIds.insert(message.localId) }
            if show(membership: message) { continue }
            let sender = people[message.senderId]
            let status = book.status(of: message)
            let line = MessageLine(message: message, sender: sender, status: status?.status, statusText: status?.label)
            if context.output.json {
                context.output.record(line)
            } else {
                let name = self.name(message.senderId)
                let prefix = "\(message.reference) [\(LocalTime.short(message.sentAt))] "
                let output = context.output
                let body = MessageDecor.body(message, continuation: output.paint(TerminalText.continuation(indent: prefix.count), .dim), output: output)
                let suffix = MessageDecor.suffix(message, output: output) + (status.map { output.paint("  · \($0.label)", .dim) } ?? "")
                output.line("\(output.paint(TerminalText(prefix), .dim))\(output.paint(TerminalText(name), .bold)): \(body)\(suffix)")
                if let quote = MessageDecor.quote(
                    message, original: MessageDecor.original(of: message, in: messages, cache: MessageCache(profile: context.profile)),
                    name: self.name, output: output)
                {
                    output.line(TerminalText(String(repeating: " ", count: prefix.count)) + quote)
                }
            }
        }
    }
}
