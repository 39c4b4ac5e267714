import NexusCore

enum DeleteCommand {
    static let spec = CommandSpec(
        name: "delete", summary: "Delete a message you sent, for everyone; queued safely first, like a send",
        usage: ["<message>"],
        details: """
            <message> is CONVERSATION/SEQ, as `send`, `tail` and `history` print it (e.g. 12/345).
            Only the sender can delete a message. The server drops its text (and reactions) and keeps a
            tombstone in its place, so seqs stay gapless; every client drops the text from its cache
            when it sees the tombstone, and shows "message deleted".
            \(MessageChangeRun.exitStatus)
            """,
        arguments: 1...1,
        requirements: [.session],
        jsonFields: ["kind", "localId", "ref", "status", "conversationId", "message", "error", "nextAttemptAt"],
        examples: [("nexusctl delete 12/345", "delete message 345 of conversation 12")],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let ref = try MessageArgument.parse(context.arguments[0])
        return try MessageChangeRun.run(context, .delete, ref, done: "deleted")
    }
}
