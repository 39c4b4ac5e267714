import NexusCore

enum ReadCommand {
    static let spec = CommandSpec(
        name: "read", summary: "Mark everything in a conversation as read",
        usage: ["<conversation>"],
        details: "\(Conversations.argumentHelp)\nThe senders see it: their messages go to Read (\"Read by 2/4\" in groups).",
        arguments: 1...1,
        requirements: [.session],
        jsonFields: ["id", "kind", "name", "title", "members", "lastSeq", "lastMessage", "createdAt", "updatedAt", "unreadCount", "receipts"],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let id = try Conversations.resolve(context.arguments[0], context)
        let me = try context.me().id
        let conversation = try context.act { actions throws(APIError) in try actions.markRead(id) }
        if context.output.json {
            context.output.document(Titled(base: conversation, title: conversation.title(viewer: me)))
        } else {
            context.output.note("Marked \(conversation.title(viewer: me)) read up to \(MessageReference(conversationId: conversation.id, seq: conversation.lastSeq)).")
        }
        return .ok
    }
}
