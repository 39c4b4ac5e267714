import NexusCore

enum ConvosCommand {
    static let spec = CommandSpec(
        name: "convos", summary: "List your conversations, most recent first",
        requirements: [.session],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let me = try context.requireSession().user.id
        let conversations = try context.call { api throws(APIError) in try api.conversations() }
        for c in conversations { Conversations.remember(c, context) }
        if context.output.json {
            context.output.document(conversations.map { ConversationView(conversation: $0, title: $0.title(viewer: me)) })
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
}
