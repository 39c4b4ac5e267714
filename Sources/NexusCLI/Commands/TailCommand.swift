#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NexusCore

enum TailCommand {
    static let spec = CommandSpec(
        name: "tail", summary: "Print recent messages; with -f, keep printing new ones as they arrive",
        usage: ["[<conversation>] [-f] [-n N]"],
        details: """
            Without <conversation>, follows all your conversations. \(Conversations.argumentHelp)
            With --json, prints one JSON object a line (NDJSON): "type" is "message", "receipt" or
            "typing". Your own messages show their status: Sent, Delivered, Read (or "Read by 2/4"
            in groups). Messages printed count as delivered to you; with --read, as read.

            With -f the position is saved in the profile after every line, so a restarted
            `tail -f` resumes where the last one stopped. Stopped by Ctrl-C, SIGTERM or SIGHUP it
            repeats nothing; killed with SIGKILL (or by a crash) it may print the one line it
            was writing again. Every JSON line carries conversationId and seq, so a program can
            drop such a repeat. --cursor NAME keeps a position of its own under NAME (the default
            is one unnamed position per conversation followed, and one for all): two `tail -f`
            can't share one position, and a second is refused. Give -n to start from the newest
            N messages instead (this also replaces a damaged saved position; without -n, a
            damaged one is an error naming its file). If the server's database was restored or
            reset, so the position is no longer in its history, the tail warns and starts again
            from the newest N messages; some may repeat, and seqs may be reused. Connection
            losses and server restarts are retried until interrupted.

            --exec CMD runs CMD with /bin/sh for each incoming message (not your own), one at a time:
            the message's JSON on its stdin; NEXUS_CONVERSATION_ID, NEXUS_MESSAGE_ID, NEXUS_SEQ,
            NEXUS_LOCAL_ID, NEXUS_SENDER, NEXUS_SENDER_NAME, NEXUS_SENDER_ID, NEXUS_SENT_AT,
            NEXUS_TEXT and NEXUS_PROFILE in its environment; its output goes to stderr. A hook that
            fails or runs over 30 s is killed and reported (whether or not it reads its stdin), and
            the tail goes on. The hook runs before the message is printed, so after a kill it may
            run again for that message.
            """,
        options: [
            OptionSpec("follow", short: "f", help: "keep running and print messages as they arrive"),
            OptionSpec("lines", short: "n", .value(placeholder: "N"), help: "print the newest N messages first (default 10)"),
            OptionSpec("exec", .value(placeholder: "CMD"), help: "with -f, run CMD for each incoming message (JSON on stdin, NEXUS_* variables)"),
            OptionSpec("cursor", .value(placeholder: "NAME"), help: "with -f, keep the saved position under NAME (one per tail -f)"),
            OptionSpec("read", help: "mark messages read as they are printed"),
            OptionSpec("receipts", help: "also print a line when someone's delivered or read mark moves (always in JSON)"),
        ],
        arguments: 0...1,
        requirements: [.session],
        jsonFields: ["type", "id", "conversationId", "seq", "senderId", "sender", "localId", "text", "sentAt", "status", "statusText",
                     "userId", "user", "kind", "at", "until"],
        examples: [
            ("nexusctl tail -f --json | jq -r .text", "follow everything, text only"),
            ("nexusctl tail -f --exec 'notify-send \"$NEXUS_SENDER_NAME\" \"$NEXUS_TEXT\"'", "a desktop notification for each incoming message"),
            ("nexusctl tail -f --cursor notify --exec ./notify.sh", "a second follower beside a terminal tail, with its own position"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let me = try context.requireSession().user
        let lines = try context.intOption("lines", default: 10, range: 0...Limits.maxPageSize)
        let conversationId = try context.arguments.first.map { arg throws(CLIError) in try Conversations.resolve(arg, context) }
        let follow = context.invocation.flag("follow")
        let hook = context.invocation.value("exec").map { Hook(command: $0, context: context) }
        if hook != nil && !follow { throw .usage("--exec runs for messages as they arrive; it needs -f") }
        let position = follow ? try openPosition(conversationId: conversationId, context) : nil
        if !follow && context.invocation.value("cursor") != nil {
            throw .usage("--cursor names the saved position of a `tail -f`; it needs -f")
        }
        let printer = MessagePrinter(context: context, me: me, showConversation: conversationId == nil)
        printer.markRead = context.invocation.flag("read")
        printer.showReceipts = context.invocation.flag("receipts")
        let api = try context.api()
        var offline = false
        do throws(APIError) {
            try printer.learnMembers(conversationId: conversationId, api: api)
        } catch {
            guard error.isNetwork else { throw context.failure(error) }
            printer.learnCachedMembers()
            offline = true
        }
        let options = FeedFollower.Options(
            conversationId: conversationId, lines: lines, startFromNewest: context.invocation.value("lines") != nil, follow: follow)
        let feed = TailFeed(printer: printer, hook: hook, options: options, context: context)
        do throws(FeedError) {
            try FeedFollower(source: api, position: position, options: options, consumer: feed).run(offline: offline)
        } catch {
            switch error {
            case .api(let e): throw context.failure(e)
            case .store(let e): throw CLIError(e)
            }
        }
        return .ok
    }

    /// The saved position this `tail -f` follows, held for as long as it runs.
    private static func openPosition(conversationId: Int64?, _ context: CommandContext) throws(CLIError) -> FeedPosition {
        let name = context.invocation.value("cursor")
        if let name, let problem = FeedPosition.problem(withName: name) { throw .usage(problem) }
        do throws(FeedPosition.OpenError) {
            return try FeedPosition(profile: context.profile, conversationId: conversationId, name: name)
        } catch {
            switch error {
            case .store(let e): throw CLIError(e)
            case .busy(let path):
                throw .usage(
                    "another `tail -f` is following with the saved position \(path); two would each skip what the other printed",
                    hint: "give this one a position of its own: --cursor NAME")
            }
        }
    }
}

/// Prints feed events as text lines or NDJSON, never the same message twice.
final class MessagePrinter {
    let context: CommandContext
    let me: User
    let showConversation: Bool
    var hook: Hook?
    var markRead = false
    var showReceipts = false
    private var people: [Int64: User] = [:]
    private var printedSeq: [Int64: Int64] = [:]
    private var shownTyping = Set<Typing>()
    private let book: ReceiptBook
    private let reporter: DeliveryReporter

    init(context: CommandContext, me: User, showConversation: Bool) {
        self.context = context
        self.me = me
        self.showConversation = showConversation
        self.book = ReceiptBook(me: me.id)
        self.reporter = DeliveryReporter(context: context, me: me.id)
        people[me.id] = me
    }

    /// Learns the names of the people in the conversations being shown.
    func learnMembers(conversationId: Int64?, api: NexusAPI) throws(APIError) {
        if let conversationId {
            let conversation = try api.conversation(conversationId)
            learn(conversation)
            Cache.remember(conversations: [conversation], context)
        } else {
            let list = try api.conversations()
            for u in list.users { people[u.id] = u }
            for c in ConversationCache(profile: context.profile).details() { book.learn(c) }
            Cache.remember(list: list, context)
        }
    }

    /// Offline: the names and receipts as last seen.
    func learnCachedMembers() {
        let cache = ConversationCache(profile: context.profile)
        for (id, u) in cache.people() where id != me.id { people[id] = u }
        for c in cache.details() { learn(c) }
    }

    private func learn(_ conversation: Conversation) {
        for user in conversation.members { people[user.id] = user }
        book.learn(conversation)
    }

    /// Learns the conversations a batch carries, and keeps its messages in the cache.
    func begin(_ events: [SyncEvent]) {
        let conversations = events.compactMap(\.conversation)
        for c in conversations { learn(c) }
        Cache.remember(conversations: conversations, context)
        Cache.remember(events.compactMap { $0.type == .message ? $0.message : nil }, context)
    }

    /// One event as its line, if it has one (conversation changes have none). Called in feed
    /// order, so a receipt follows the message it covers.
    func print(_ event: SyncEvent) {
        if let m = event.message, event.type == .message {
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
        guard let hook, message.senderId != me.id else { return }
        if let printed = printedSeq[message.conversationId], message.seq <= printed { return }
        let sender = people[message.senderId]
        let status = book.status(of: message)
        hook.run(message, sender: sender, json: MessageLine(message: message, sender: sender?.email, status: status?.status, statusText: status?.label).json())
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
            let name = who?.displayName ?? "user \(receipt.userId)"
            let verb = receipt.kind == .read ? "read" : "received"
            context.output.line(context.output.paint(
                "\(showConversation ? "#\(conversationId) " : "")[\(LocalTime.short(receipt.at))] \(name) \(verb) up to #\(receipt.seq)", .dim))
        }
    }

    /// "bob is typing…" on a terminal, and a typing record in JSON; once per announcement.
    func show(typing: [Typing]) {
        for t in typing where t.userId != me.id && shownTyping.insert(t).inserted {
            let who = people[t.userId]
            if context.output.json {
                context.output.record(TypingLine(typing: t, user: who?.email))
            } else if context.terminal.outputIsTerminal {
                let name = who?.displayName ?? "user \(t.userId)"
                context.output.line(context.output.paint("\(showConversation ? "#\(t.conversationId) " : "")\(name) is typing…", .dim))
            }
        }
    }

    func print(messages: [Message]) {
        guard !messages.isEmpty else { return }
        for message in messages {
            if let printed = printedSeq[message.conversationId], message.seq <= printed { continue }
            printedSeq[message.conversationId] = message.seq
            let sender = people[message.senderId]
            let status = book.status(of: message)
            let line = MessageLine(message: message, sender: sender?.email, status: status?.status, statusText: status?.label)
            if context.output.json {
                context.output.record(line)
            } else {
                let name = message.senderId == me.id ? "You" : sender?.displayName ?? "user \(message.senderId)"
                let prefix = (showConversation ? "#\(message.conversationId) " : "") + "[\(LocalTime.short(message.sentAt))] "
                let output = context.output
                let body = TerminalText.body(message.text, continuation: output.paint(TerminalText.continuation(indent: prefix.count), .dim))
                let suffix = status.map { output.paint("  · \($0.label)", .dim) } ?? ""
                output.line("\(output.paint(TerminalText(prefix), .dim))\(output.paint(TerminalText(name), .bold)): \(body)\(suffix)")
            }
        }
    }
}

/// A message as `tail --json` prints it: the wire fields, a type, the sender's email, and
/// for my own messages their status ("sent", "delivered", "read") and its words.
struct MessageLine: Encodable {
    var message: Message
    var sender: String?
    var status: String? = nil
    var statusText: String? = nil

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    private enum Keys: String, CodingKey { case type, sender, status, statusText }

    func encode(to encoder: any Encoder) throws {
        try message.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode("message", forKey: .type)
        try container.encodeIfPresent(sender, forKey: .sender)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(statusText, forKey: .statusText)
    }
}

/// A watermark that moved, as `tail --json` prints it.
struct ReceiptLine: Encodable {
    var type = "receipt"
    var conversationId: Int64
    var receipt: Receipt
    var user: String?

    private enum Keys: String, CodingKey { case type, conversationId, userId, user, kind, seq, at }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(type, forKey: .type)
        try c.encode(conversationId, forKey: .conversationId)
        try c.encode(receipt.userId, forKey: .userId)
        try c.encodeIfPresent(user, forKey: .user)
        try c.encode(receipt.kind, forKey: .kind)
        try c.encode(receipt.seq, forKey: .seq)
        try c.encode(receipt.at, forKey: .at)
    }
}

/// Someone typing, as `tail --json` prints it.
struct TypingLine: Encodable {
    var type = "typing"
    var conversationId: Int64
    var userId: Int64
    var user: String?
    var until: Timestamp

    init(typing: Typing, user: String?) {
        conversationId = typing.conversationId
        userId = typing.userId
        self.user = user
        until = typing.until
    }
}
