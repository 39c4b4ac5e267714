import NexusCore

enum LeaveCommand {
    static let spec = CommandSpec(
        name: "leave", summary: "Leave a group; queued safely first, like a send",
        usage: ["<conversation>"],
        details: """
            <conversation> is a group's id (see `nexusctl convos`). The others see "Alice left". From then
            on the group answers "not found", as for anyone outside it; what your cache holds stays
            (`history` offline still shows it) and the group leaves `convos`. A member can add you again.
            A later `send` to it fails at once (exit 3, nothing queued) saying you left, and who can
            add you back.
            The change is written to the outbox first and delivered in order after what was queued
            before it in that conversation (so a message queued before it still goes).
            \(MembershipChangeRun.exitStatus)
            """,
        arguments: 1...1,
        requirements: [.session],
        jsonFields: ["kind", "localId", "conversationId", "status", "message", "note", "error", "nextAttemptAt"],
        examples: [("nexusctl leave 12", "leave group 12")],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        try MembershipChangeRun.run(context, .leave, conversationId: try MembershipArguments.group(context.arguments[0]))
    }
}
