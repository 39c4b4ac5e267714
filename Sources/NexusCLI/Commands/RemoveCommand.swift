import NexusCore

enum RemoveCommand {
    static let spec = CommandSpec(
        name: "remove", summary: "Remove people from a group; queued safely first, like a send",
        usage: ["<conversation> <email>..."],
        details: """
            <conversation> is a group's id (see `nexusctl convos`). Any member of a group may remove
            others (to take yourself out, `leave`). Every member sees "Alice removed Carol"; from then on
            the people removed get "not found" for the group, as anyone outside it does, and keep only
            what their own cache holds. The change is written to the outbox first and delivered in
            order after what was queued before it in that conversation.
            \(MembershipChangeRun.exitStatus)
            """,
        arguments: 2...256,
        requirements: [.session],
        jsonFields: ["kind", "localId", "conversationId", "status", "message", "note", "error", "nextAttemptAt"],
        examples: [("nexusctl remove 12 carol@example.com", "take Carol out of group 12")],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let id = try MembershipArguments.group(context.arguments[0])
        let emails = try MembershipArguments.emails(Array(context.arguments.dropFirst()))
        if let mine = try? context.me(), emails.contains(mine.email.lowercased()) {
            throw .usage("to take yourself out of a group, leave it", hint: "run `nexusctl leave \(id)`.")
        }
        return try MembershipChangeRun.run(context, .remove, conversationId: id, emails: emails)
    }
}
