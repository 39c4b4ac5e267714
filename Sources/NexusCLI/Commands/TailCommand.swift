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

            With -f the position is saved in the profile after every batch, so a restarted
            `tail -f` resumes where the last one stopped: nothing skipped, nothing repeated.
            Give -n to start from the newest N messages instead. Connection losses and server
            restarts are retried until interrupted.

            --exec CMD runs CMD with /bin/sh for each incoming message (not your own), one at a time:
            the message's JSON on its stdin; NEXUS_CONVERSATION_ID, NEXUS_MESSAGE_ID, NEXUS_SEQ,
            NEXUS_LOCAL_ID, NEXUS_SENDER, NEXUS_SENDER_NAME, NEXUS_SENDER_ID, NEXUS_SENT_AT,
            NEXUS_TEXT and NEXUS_PROFILE in its environment; its stdout goes to stderr. A hook that
            fails or runs over 30 s is reported, and the tail goes on.
            """,
        options: [
            OptionSpec("follow", short: "f", help: "keep running and print messages as they arrive"),
            OptionSpec("lines", short: "n", .value(placeholder: "N"), help: "print the newest N messages first (default 10)"),
            OptionSpec("exec", .value(placeholder: "CMD"), help: "with -f, run CMD for each incoming message (JSON on stdin, NEXUS_* variables)"),
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
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let me = try context.requireSession().user
        let lines = try context.intOption("lines", default: 10, range: 0...Limits.maxPageSize)
        let conversationId = try context.arguments.first.map { arg throws(CLIError) in try Conversations.resolve(arg, context) }
        let follow = context.invocation.flag("follow")
        let hook = context.invocation.value("exec").map { Hook(command: $0, context: context) }
        if hook != nil && !follow { throw .usage("--exec runs for messages as they arrive; it needs -f") }
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

        // Where the stream starts: the saved cursor of an earlier `tail -f`, or after the
        // newest `lines` messages, which are printed first.
        let key = conversationId.map { "c\($0)" } ?? "all"
        var cursor: Int64? = nil
        if follow, context.invocation.value("lines") == nil, let saved = context.profile.loadCursor(key: key) {
            cursor = saved
        } else if !offline {
            do throws(APIError) {
                let recent = try api.sync(last: lines, conversationId: conversationId)
                printer.print(recent.events)
                cursor = recent.cursor
            } catch {
                guard error.isNetwork else { throw context.failure(error) }
                offline = true
            }
        }
        if offline {
            context.output.warn("offline (can't reach \(api.address)); showing cached messages" + (follow ? ", then waiting for the server" : ""))
            if cursor == nil { printer.print(messages: try Cache.newest(lines, conversationId: conversationId, context)) }
        }
        guard follow else { return .ok }
        if let cursor { try saveCursor(cursor, key: key, context) }
        // Hooks run for what arrives from here on, not for the backlog printed first.
        printer.hook = hook

        var backoffMs: UInt32 = 200
        while true {
            do throws(APIError) {
                guard let after = cursor else {
                    // Started offline: join the stream after the newest messages, which the
                    // printer shows unless they were printed from the cache already.
                    let recent = try api.sync(last: lines, conversationId: conversationId)
                    printer.print(recent.events)
                    cursor = recent.cursor
                    continue
                }
                // While offline, probe without waiting, so the reconnection is noticed at once.
                let batch = try api.sync(after: after, conversationId: conversationId, waitSeconds: offline ? 0 : 25)
                if offline {
                    context.output.note("Reconnected to \(api.address).")
                    offline = false
                    // The connection is back: deliver what was queued while it was gone.
                    Delivery.opportunistic(context, ignoreBackoff: true)
                }
                backoffMs = 200
                printer.show(typing: batch.typing ?? [])
                if !batch.events.isEmpty {
                    printer.print(batch.events)
                    cursor = batch.cursor
                    try? saveCursor(batch.cursor, key: key, context)
                }
            } catch {
                guard error.isTransient else { throw context.failure(error) }
                if !offline {
                    context.output.warn("\(error); retrying until the server is back")
                    offline = true
                }
                // A 429 names its wait; asking again sooner would only be refused again.
                let askedMs = UInt32(min(max(error.retryAfter ?? 0, 0), 300)) * 1000
                usleep(max(backoffMs, askedMs) * 1000)
                backoffMs = min(backoffMs * 2, 5000)
            }
        }
    }

    private static func saveCursor(_ cursor: Int64, key: String, _ context: CommandContext) throws(CLIError) {
        do {
            try context.profile.ensureDirectory()
            try context.profile.saveCursor(cursor, key: key)
        } catch {
            throw CLIError(error)
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

    func print(_ events: [SyncEvent]) {
        let conversations = events.compactMap(\.conversation)
        for c in conversations { learn(c) }
        Cache.remember(conversations: conversations, context)
        // Messages and receipts in feed order, so a receipt follows the message it covers.
        var messages: [Message] = []
        for event in events {
            if let m = event.message, event.type == .message {
                messages.append(m)
            } else if let r = event.receipt, event.type == .receipt {
                print(messages: messages)
                messages = []
                show(receipt: r, in: event.conversationId)
            }
        }
        print(messages: messages)
    }

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
        Cache.remember(messages, context)
        defer { reporter.stored(messages, read: markRead) }
        for message in messages {
            if let printed = printedSeq[message.conversationId], message.seq <= printed { continue }
            printedSeq[message.conversationId] = message.seq
            let sender = people[message.senderId]
            let status = book.status(of: message)
            let line = MessageLine(message: message, sender: sender?.email, status: status?.status, statusText: status?.label)
            if let hook, message.senderId != me.id { hook.run(message, sender: sender, json: line.json()) }
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
