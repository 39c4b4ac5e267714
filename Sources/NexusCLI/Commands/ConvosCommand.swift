import NexusCore

enum ConvosCommand {
    static let spec = CommandSpec(
        name: "convos", summary: "List your conversations, most recent first",
        usage: ["[--search QUERY] [--unread] [--limit N]"],
        details: """
            Each row: the name (the other person's, or the group's; ● when they are online), when the
            last message came ("Just now", "5m", "2h", "Yesterday", "Mon", "12/24"), how many messages
            you have not read, and the last message (with "You: " when it was yours, and ✓✓ once it
            has been read). When the server can't be reached, lists them from the local cache and
            says so. With --json: {"conversations": [...], "offline": bool}.
            """,
        options: [
            OptionSpec("search", short: "s", .value(placeholder: "QUERY"), help: "only names or last messages containing QUERY (any case)"),
            OptionSpec("unread", help: "only conversations with unread messages"),
            OptionSpec("limit", .value(placeholder: "N"), help: "at most N conversations"),
        ],
        requirements: [.session],
        jsonFields: ["id", "kind", "name", "title", "members", "lastSeq", "lastMessage", "createdAt", "updatedAt", "unreadCount", "receipts"],
        examples: [("nexusctl convos --unread", "what is waiting for me"), ("nexusctl convos --fields id,title --json | jq -r '.conversations[] | \"\\(.id) \\(.title)\"'", "ids and names for a script")],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let me = try context.requireSession().user.id
        let limit = try context.intOption("limit", default: Int.max, range: 1...Int.max)
        var conversations: [Conversation]
        var offline = false
        let api = try context.api()
        do throws(APIError) {
            conversations = try api.conversations()
            Cache.remember(conversations: conversations, replacingAll: true, context)
        } catch {
            guard error.isNetwork else { throw context.failure(error) }
            conversations = ConversationCache(profile: context.profile).load()
            offline = true
            context.output.warn("offline (\(error)); showing cached conversations")
        }
        let total = conversations.count
        conversations = Array(filter(conversations, me: me, search: context.invocation.value("search"),
                                     unreadOnly: context.invocation.flag("unread")).prefix(limit))
        if context.output.json {
            context.output.document(
                ConvosView(conversations: conversations.map { ConversationView(conversation: $0, title: $0.title(viewer: me)) }, offline: offline),
                items: "conversations")
            return .ok
        }
        if conversations.isEmpty {
            context.output.note(total == 0 ? "No conversations yet. Start one with: nexusctl new <email>" : "No conversations match.")
            return .ok
        }
        let now = Timestamp.now()
        let output = context.output
        context.output.table(
            conversations.map { c in
                let other = c.kind == .direct ? c.members.first { $0.id != me } : nil
                let mark = other?.online == true ? output.paint("●", .green) + " " : "  "
                var last = ""
                if let m = c.lastMessage {
                    last = (m.senderId == me ? "You: " : "") + preview(m.text, limit: 60)
                    if m.senderId == me, ReceiptBook(me: me).with(c).status(of: m)?.status == "read" { last += " ✓✓" }
                }
                let unread = (c.unreadCount ?? 0) > 0 ? output.paint(String(c.unreadCount!), .bold) : ""
                return [String(c.id), mark + c.title(viewer: me), SmartTime.short(c.updatedAt, now: now), unread, last]
            },
            header: ["ID", "  NAME", "WHEN", "UNREAD", "LAST MESSAGE"])
        return .ok
    }

    /// Most recent first; then --search (names and last message, any case) and --unread.
    static func filter(_ conversations: [Conversation], me: Int64, search: String?, unreadOnly: Bool) -> [Conversation] {
        let query = search?.lowercased()
        return conversations
            .filter { !unreadOnly || ($0.unreadCount ?? 0) > 0 }
            .filter { c in
                guard let query, !query.isEmpty else { return true }
                return c.title(viewer: me).lowercased().contains(query)
                    || c.members.contains { $0.id != me && $0.displayName.lowercased().contains(query) }
                    || (c.lastMessage?.text.lowercased().contains(query) ?? false)
            }
            .sorted { ($0.updatedAt, $0.id) > ($1.updatedAt, $1.id) }
    }

    struct ConvosView: Encodable {
        var conversations: [ConversationView]
        var offline: Bool
    }
}
