import NexusCore

enum RenameCommand {
    static let spec = CommandSpec(
        name: "rename", summary: "Rename a group; queued safely first, like a send",
        usage: ["<conversation> <name>..."],
        details: """
            <conversation> is a group's id (see `nexusctl convos`); the words of <name> are joined with
            spaces. Any member may rename a group; everyone sees "Alice renamed the group to "Ops"", and
            `convos` shows the new name. A direct conversation has no name to change.
            \(MembershipChangeRun.exitStatus)
            """,
        arguments: 2...Int.max,
        requirements: [.session],
        jsonFields: ["kind", "localId", "conversationId", "status", "message", "note", "error", "nextAttemptAt"],
        examples: [("nexusctl rename 12 Release crew", "call group 12 \"Release crew\"")],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let id = try MembershipArguments.group(context.arguments[0])
        let name = context.arguments.dropFirst().joined(separator: " ").trimmingSpaces()
        if name.isEmpty { throw .usage("a group's name can't be empty") }
        if let problem = Identity.problem(withName: name, what: "name", checkLength: false) { throw .usage(problem) }
        return try MembershipChangeRun.run(context, .rename, conversationId: id, name: name)
    }
}
