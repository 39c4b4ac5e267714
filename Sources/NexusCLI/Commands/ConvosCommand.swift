import NexusCore

enum ConvosCommand {
    static let spec = CommandSpec(
        name: "convos", summary: "List your conversations, most recent first",
        details: "When the server can't be reached, lists them from the local cache and says so.\nWith --json: {\"conversations\": [...], \"offline\": bool}.",
        requirements: [.session],
        jsonFields: ["id", "kind", "name", "title", "members", "lastSeq", "lastMessage", "createdAt", "updatedAt"],
        examples: [
            ("nexusctl convos --fields id,title --json | jq -r '.conversations[] | \"\\(.id) \\(.title)\"'", "ids and names for a script"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let me = try context.requireSession().user.id
        var conversations: [Conversation]
        var offline = false
        let api = try context.api()
        do throws(APIError) {
            conversations = try api.conversations()
            Cache.remember(conversations: conversations, replacingAll: true, context)
        } catch {
            guard error.isNetwork else { throw context.failure(error) }
            conversations = ConversationCache(profile: context.profile).load().sorted { ($0.updatedAt, $0.id) > ($1.updatedAt, $1.id) }
            offline = true
            context.output.warn("offline (\(error)); showing cached conversations")
        }
        if context.output.json {
            context.output.document(
                ConvosView(conversations: conversations.map { ConversationView(conversation: $0, title: $0.title(viewer: me)) }, offline: offline),
                items: "conversations")
            return .ok
        }
        if conversations.isEmpty {
            context.output.note("No conversations yet. Start one with: nexusctl new <email>")
            return .ok
        }
        let rows = conversations.map { c -> [String] in
            var last = ""
            if let m = c.lastMessage { last = (m.senderId == me ? "You: " : "") + preview(m.text, limit: 60) }
            return [String(c.id), c.title(viewer: me), LocalTime.short(c.updatedAt), last]
        }
        context.output.table(rows, header: ["ID", "NAME", "UPDATED", "LAST MESSAGE"])
        return .ok
    }

    struct ConvosView: Encodable {
        var conversations: [ConversationView]
        var offline: Bool
    }
}
