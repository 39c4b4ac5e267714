import NexusCore

enum TypingCommand {
    static let spec = CommandSpec(
        name: "typing", summary: "Tell the others in a conversation that you are typing (for 3 s)",
        usage: ["<conversation>"],
        details: """
            \(Conversations.argumentHelp)
            A running `nexusctl tail -f` of theirs shows "<you> is typing…" when it writes to a
            terminal, until it runs out or your message arrives; written to a pipe or a file its text leaves typing out (a script reading messages would
            have to skip it), and `tail -f --json` carries it as a "typing" record. Says what it did on
            stderr unless --quiet.
            """,
        arguments: 1...1,
        requirements: [.session],
        jsonFields: ["conversationId", "userId", "until"],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let id = try Conversations.resolve(context.arguments[0], context)
        let typing = try context.call { api throws(APIError) in try api.typing(conversationId: id) }
        if context.output.json {
            context.output.document(typing)
        } else {
            context.output.note("Told the others in conversation \(id) that you are typing (for 3 s).")
        }
        return .ok
    }
}
