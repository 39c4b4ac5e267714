import NexusCore

enum ReactCommand {
    static let remove = Flag("remove", help: "take your reaction back")

    static let spec = CommandSpec(
        name: "react", summary: "React to a message with an emoji or a short word, or take a reaction back",
        usage: ["<message> <emoji>", "<message> <emoji> --remove"],
        details: """
            <message> is CONVERSATION/SEQ, as `send`, `tail` and `history` print it (e.g. 12/345).
            Any member may react, with any emoji or short text (up to \(Limits.maxReactionBytes) bytes), once
            each: reacting twice with the same one changes nothing. `history` shows the counts
            ("👍 2 ❤️ 1"), `tail -f` prints each reaction as it comes. Queued safely first, like a send.
            \(MessageChangeRun.exitStatus)
            """,
        options: [remove],
        arguments: 2...2,
        requirements: [.session],
        jsonFields: ["kind", "localId", "ref", "status", "conversationId", "message", "error", "nextAttemptAt"],
        examples: [
            ("nexusctl react 12/345 👍", "acknowledge message 345 of conversation 12"),
            ("nexusctl react 12/345 👍 --remove", "take the acknowledgement back"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let ref = try MessageArgument.parse(context.arguments[0])
        let emoji = context.arguments[1]
        if let problem = Limits.problem(withReaction: emoji) { throw .usage(problem) }
        let remove = context.invocation[Self.remove]
        return try MessageChangeRun.run(
            context, remove ? .unreact : .react, ref, emoji: emoji, done: remove ? "removed \(emoji) from" : "reacted \(emoji) to")
    }
}
