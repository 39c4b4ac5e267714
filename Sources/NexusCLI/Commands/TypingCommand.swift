import NexusCore

enum TypingCommand {
    static let spec = CommandSpec(
        name: "typing", summary: "Tell the others in a conversation that you are typing (for about 5 s)",
        usage: ["<conversation>"],
        details: "\(Conversations.argumentHelp)\nA running `nexusctl tail -f` of theirs shows \"<you> is typing…\".",
        arguments: 1...1,
        requirements: [.session],
        jsonFields: ["conversationId", "userId", "until"],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let id = try Conversations.resolve(context.arguments[0], context)
        let typing = try context.call { api throws(APIError) in try api.typing(conversationId: id) }
        if context.output.json { context.output.document(typing) }
        return .ok
    }
}
