import NexusCore

enum EditCommand {
    static let spec = CommandSpec(
        name: "edit", summary: "Change the text of a message you sent; queued safely first, like a send",
        usage: ["<message> <text>...", "<message> -"],
        details: """
            <message> is CONVERSATION/SEQ, as `send`, `tail` and `history` print it (e.g. 12/345).
            The words of <text> are joined with spaces; with '-' all of stdin is the new text. Only the
            sender can edit a message, as many times as they like; everyone then sees the current text
            marked "(edited)". The edit is written to the outbox first and delivered in order after
            what was queued before it in that conversation.
            \(MessageChangeRun.exitStatus)
            """,
        arguments: 2...Int.max,
        requirements: [.session],
        jsonFields: ["kind", "localId", "ref", "status", "conversationId", "message", "error", "nextAttemptAt"],
        examples: [("nexusctl edit 12/345 \"deploy 100%\"", "replace the text of message 345 of conversation 12")],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let ref = try MessageArgument.parse(context.arguments[0])
        let words = Array(context.arguments.dropFirst())
        var text: String
        if words == ["-"] {
            text = String(decoding: context.terminal.readAllInput(), as: UTF8.self)
            while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        } else {
            text = words.joined(separator: " ")
        }
        if let problem = Limits.problem(withText: text) { throw .badText(problem) }
        return try MessageChangeRun.run(context, .edit, ref, text: text, done: "edited")
    }
}
