import NexusCore

enum ConvosCommand {
    static let search = Value("search", short: "s", "QUERY", help: "only names or last messages containing QUERY (any case)")
    static let unread = Flag("unread", help: "only conversations with unread messages")
    static let limit = Value("limit", "N", help: "at most N conversations")
    static let follow = Flag("follow", short: "f", help: "keep running and show the list again whenever it changes")

    static let spec = CommandSpec(
        name: "convos", summary: "List your conversations, most recent first",
        usage: ["[--search QUERY] [--unread] [--limit N] [-f]"],
        details: """
            Each row: the name (the other person's, or the group's; ● when they are online), when the
            last message came ("Just now", "5m", "2h", "Yesterday", "Mon", "12/24"), how many messages
            you have not read, and the last message ("You: " when it was yours, the sender's name in a
            group, "Alice: …", and ✓✓ once it has been read). 🔕 after the name: muted (`nexusctl mute`). On a terminal each row fits its
            width: the last message gets what is left, at most 60 characters. When the server
            can't be reached, lists them from the local cache and says so. With --json:
            {"conversations": [...], "users": [...], "mutes": [...], "offline": bool}; `mutes` (absent when
            none) holds {"conversationId", "until", "exceptMentions"} for each muted conversation.

            With -f (follow) it keeps running and shows every change: a new message, an unread
            count, someone typing (until it runs out, 3 s, or their message arrives), someone
            coming online or going offline. On a terminal it redraws the list in place; printed to a pipe or a file it prints the whole list again after each
            change, with a blank line between; with --json it prints NDJSON: at the start one line
            per conversation ("type": "conversation", the fields above) and one per contact who
            is online ("type": "presence"), then one line per change: "conversation" (the row as
            it now is), "presence" ("userId", "user", "online", "lastSeenAt") or "typing"
            ("conversationId", "userId", "user", "until"). While it runs you count as online.
            Ctrl-C, SIGTERM or SIGHUP end it cleanly.
            """,
        options: [search, unread, limit, follow],
        requirements: [.session], deliversQueueAfterwards: true,
        jsonFields: ["id", "kind", "name", "title", "memberIds", "lastSeq", "lastMessage", "createdAt", "updatedAt", "unreadCount", "lastMessageReadBy", "lastMessageReaders",
                     "type", "userId", "user", "online", "lastSeenAt", "conversationId", "until", "mutes", "exceptMentions"],
        examples: [("nexusctl convos --unread", "what is waiting for me"), ("nexusctl convos --fields id,title --json | jq -r '.conversations[] | \"\\(.id) \\(.title)\"'", "ids and names for a script")],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let me = try context.me().id
        let limit = try context.intOption(Self.limit, default: Int.max, range: 1...Int.max)
        if context.invocation[follow] { return try ConvosFollow(context: context, me: me, limit: limit).run() }
        // Kept in the cache beside the printing; the queue's delivery after the command waits.
        let fetched = try context.read { reading throws(ReadError) in try reading.conversations(keepingAside: true) }
        defer { context.warn(fetched.kept()) }
        let list = fetched.value
        let offline = fetched.offlineReason != nil
        if let reason = fetched.offlineReason { context.output.offline("\(reason); showing cached conversations") }
        let people = Dictionary(list.users.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        let total = list.conversations.count
        let kept = filter(list.conversations, me: me, people: people, search: context.invocation[search],
                          unreadOnly: context.invocation[unread])
        // Not copied when whole: ten thousand summaries are megabytes.
        let shown = kept.count > limit ? Array(kept.prefix(limit)) : kept
        if context.output.json {
            let ids = Set(shown.flatMap(\.memberIds))
            context.output.document(
                ConvosView(
                    conversations: shown.map { Titled(base: $0, title: $0.title(viewer: me, users: people)) },
                    users: list.users.filter { ids.contains($0.id) }.sorted { $0.id < $1.id }, mutes: list.mutes, offline: offline),
                items: "conversations")
            return .ok
        }
        if shown.isEmpty {
            context.output.note(total == 0 ? "No conversations yet. Start one with: nexusctl new <email>" : "No conversations match.")
            return .ok
        }
        printTable(shown, me: me, people: people, muted: muted(list), offline: offline, output: context.output)
        return .ok
    }

    /// The list as a table: ID, name (● when online), when, unread count, last message.
    /// The last message gets what the terminal's width leaves of the row, at most 60
    /// characters (as the product documents cut it), so no row wraps; in a group it
    /// names who wrote it ("Alice: …"), and "You: " for your own everywhere.
    static func printTable(
        _ shown: [ConversationSummary], me: Int64, people: [Int64: User], muted: Set<Int64> = [], offline: Bool, output: Output
    ) {
        let now = Timestamp.now()
        let header: [TerminalText] = ["ID", "  NAME", "WHEN", "UNREAD", "LAST MESSAGE"]
        var rows: [[TerminalText]] = []
        rows.reserveCapacity(shown.count)
        for c in shown {
            let other = c.kind == .direct ? c.memberIds.first { $0 != me }.flatMap { people[$0] } : nil
            let mark = other?.online == true && !offline ? output.paint("●", .green) + " " : "  "
            // Numbers and our own times have nothing to escape: taken as they are.
            let unread = c.unreadCount > 0 ? output.paint(TerminalText(stringLiteral: String(c.unreadCount)), .bold) : ""
            let quiet = muted.contains(c.id) ? output.paint(" 🔕", .dim) : ""
            rows.append([TerminalText(stringLiteral: String(c.id)), mark + TerminalText(c.title(viewer: me, users: people)) + quiet,
                         TerminalText(stringLiteral: SmartTime.short(c.updatedAt, now: now)), unread])
        }
        // What the first four columns take, with the table's two spaces after each; measured
        // only for a terminal (ten thousand rows to a pipe are not measured twice).
        let room = output.terminal.columns.map { width in
            width - (0..<4).reduce(0) { sum, i in sum + 2 + rows.reduce(displayWidth(header[i].rendered)) { max($0, displayWidth($1[i].rendered)) } }
        } ?? previewLimit
        for (i, c) in shown.enumerated() { rows[i].append(lastMessage(c, me: me, people: people, room: room, output: output)) }
        output.table(rows, header: header)
    }

    /// At most this many characters of the last message, whatever the width.
    static let previewLimit = 60

    /// "Alice: who's in for ramen?", "You: see you there ✓✓", cut to fit `room` columns.
    private static func lastMessage(_ c: ConversationSummary, me: Int64, people: [Int64: User], room: Int, output: Output) -> TerminalText {
        guard let m = c.lastMessage else { return "" }
        let sender = m.senderId == me ? "You" : c.kind == .group ? people[m.senderId]?.shownName : nil
        var last: TerminalText = sender.map { TerminalText($0) + ": " } ?? ""
        let read = m.senderId == me && c.lastMessageReadByAll
        let limit = min(previewLimit, room - displayWidth(last.rendered) - (read ? displayWidth(" ✓✓") : 0))
        // A sent text is never blank, so an empty one is a tombstone (the cached list keeps no deletedAt).
        if m.deletedAt != nil || m.text.isEmpty {
            last += output.paint(TerminalText(MessageDecor.deletedText), .dim)
        } else if limit > 0 {
            last += preview(AttachmentText.body(m), limit: limit)
        }
        if read { last += " ✓✓" }
        return last
    }

    /// Most recent first; then --search (names and last message, any case) and --unread.
    static func filter(
        _ conversations: [ConversationSummary], me: Int64, people: [Int64: User], search: String?, unreadOnly: Bool
    ) -> [ConversationSummary] {
        let query = search?.lowercased()
        // One pass, and none without --unread or --search: each copy of ten thousand
        // summaries is megabytes of fresh pages.
        var kept = conversations
        if unreadOnly || !(query ?? "").isEmpty {
            kept = conversations.filter { c in
                guard !unreadOnly || c.unreadCount > 0 else { return false }
                guard let query, !query.isEmpty else { return true }
                return c.title(viewer: me, users: people).lowercased().contains(query)
                    || c.memberIds.contains { $0 != me && (people[$0]?.displayName.lowercased().contains(query) ?? false) }
                    || (c.lastMessage?.text.lowercased().contains(query) ?? false)
            }
        }
        // The server's list, and so the cache's, comes most recent first: sorted only when
        // it is not (the sort is stable, so an ordered list is left as it is either way).
        func before(_ a: ConversationSummary, _ b: ConversationSummary) -> Bool { (a.updatedAt, a.id) > (b.updatedAt, b.id) }
        if kept.indices.dropFirst().contains(where: { before(kept[$0], kept[$0 - 1]) }) { kept.sort(by: before) }
        return kept
    }

    struct ConvosView: Encodable {
        var conversations: [Titled<ConversationSummary>]
        var users: [User]
        /// The account's mutes in force (absent when none).
        var mutes: [Mute]?
        var offline: Bool
    }

    /// The conversations muted now.
    static func muted(_ list: ConversationsResponse) -> Set<Int64> {
        let now = Timestamp.now()
        return Set((list.mutes ?? []).filter { $0.holds(at: now) }.map(\.conversationId))
    }

}
