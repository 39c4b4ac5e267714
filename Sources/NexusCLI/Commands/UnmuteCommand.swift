import NexusCore

enum UnmuteCommand {
    static let spec = CommandSpec(
        name: "unmute", summary: "End a conversation's mute on every device; queued safely first",
        usage: ["<conversation>"],
        details: """
            \(Conversations.argumentHelp) Ends the mute `nexusctl mute` set, on every device of yours.
            \(MuteRun.exitStatus)
            """,
        arguments: 1...1,
        requirements: [.session],
        jsonFields: ["kind", "localId", "conversationId", "status", "note", "error", "nextAttemptAt"],
        examples: [("nexusctl unmute 12", "hear of group 12 again")],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        try MuteRun.run(context, mute: false, conversationId: try Conversations.resolve(context.arguments[0], context))
    }
}
