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
            With --json, prints one JSON object a line (NDJSON).

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
        ],
        arguments: 0...1,
        requirements: [.session],
        jsonFields: ["type", "id", "conversationId", "seq", "senderId", "sender", "localId", "text", "sentAt"],
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
                usleep(backoffMs * 1000)
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
    private var people: [Int64: User] = [:]
    private var printedSeq: [Int64: Int64] = [:]

    init(context: CommandContext, me: User, showConversation: Bool) {
        self.context = context
        self.me = me
        self.showConversation = showConversation
        people[me.id] = me
    }

    /// Learns the names of the people in the conversations being shown.
    func learnMembers(conversationId: Int64?, api: NexusAPI) throws(APIError) {
        let conversations = conversationId == nil ? try api.conversations() : [try api.conversation(conversationId!)]
        for c in conversations { learn(c) }
        Cache.remember(conversations: conversations, replacingAll: conversationId == nil, context)
    }

    /// Offline: the names as last seen.
    func learnCachedMembers() {
        for c in ConversationCache(profile: context.profile).load() { learn(c) }
    }

    private func learn(_ conversation: Conversation) {
        for user in conversation.members { people[user.id] = user }
    }

    func print(_ events: [SyncEvent]) {
        let conversations = events.compactMap(\.conversation)
        for c in conversations { learn(c) }
        if !conversations.isEmpty { Cache.remember(conversations: conversations, replacingAll: false, context) }
        print(messages: events.compactMap { $0.type == .message ? $0.message : nil })
    }

    func print(messages: [Message]) {
        Cache.remember(messages, context)
        for message in messages {
            if let printed = printedSeq[message.conversationId], message.seq <= printed { continue }
            printedSeq[message.conversationId] = message.seq
            let sender = people[message.senderId]
            let line = MessageLine(message: message, sender: sender?.email)
            if let hook, message.senderId != me.id { hook.run(message, sender: sender, json: line.json()) }
            if context.output.json {
                context.output.record(line)
            } else {
                let name = message.senderId == me.id ? "You" : sender?.displayName ?? "user \(message.senderId)"
                let prefix = (showConversation ? "#\(message.conversationId) " : "") + "[\(LocalTime.short(message.sentAt))] "
                let body = message.text.replacingNewlines(indent: String(repeating: " ", count: prefix.count + 2))
                context.output.line(context.output.paint(prefix, .dim) + context.output.paint(name, .bold) + ": " + body)
            }
        }
    }
}

/// A message as `tail --json` prints it: the wire fields, a type, and the sender's email.
struct MessageLine: Encodable {
    var message: Message
    var sender: String?

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    private enum Keys: String, CodingKey { case type, sender }

    func encode(to encoder: any Encoder) throws {
        try message.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode("message", forKey: .type)
        try container.encodeIfPresent(sender, forKey: .sender)
    }
}

extension String {
    /// Continuation lines indented under the first, so a multi-line message stays readable.
    func replacingNewlines(indent: String) -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n" + indent)
    }
}
