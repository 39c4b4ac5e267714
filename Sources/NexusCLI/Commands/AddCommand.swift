import NexusCore

enum AddCommand {
    static let spec = CommandSpec(
        name: "add", summary: "Add people to a group; queued safely first, like a send",
        usage: ["<conversation> <email>..."],
        details: """
            <conversation> is a group's id (see `nexusctl convos`). Any member of a group may add people;
            a bot (`nexusctl bot create`) can be added by its owner only. Every member sees
            "Alice added Carol" in `tail` and `history`, and the people added see the whole history.
            The change is written to the outbox first and delivered in order after what was queued
            before it in that conversation.
            \(MembershipChangeRun.exitStatus)
            """,
        arguments: 2...256,
        requirements: [.session],
        jsonFields: ["kind", "localId", "conversationId", "status", "message", "note", "error", "nextAttemptAt"],
        examples: [("nexusctl add 12 carol@example.com dave@example.com", "add two people to group 12")],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let id = try MembershipArguments.group(context.arguments[0])
        let emails = try MembershipArguments.emails(Array(context.arguments.dropFirst()))
        return try MembershipChangeRun.run(context, .add, conversationId: id, emails: emails)
    }
}

/// What `add`, `remove`, `leave` and `rename` take: a group by id, and people by email.
enum MembershipArguments {
    static func group(_ argument: String) throws(CLIError) -> Int64 {
        guard let id = Int64(argument), id > 0 else {
            throw .usage("'\(argument)' is not a group id", hint: "name the group by its id, as `nexusctl convos` lists it; a direct conversation's members can't change.")
        }
        return id
    }

    static func emails(_ arguments: [String]) throws(CLIError) -> [String] {
        var seen = Set<String>()
        var emails: [String] = []
        for raw in arguments {
            let email = Identity.normalizedEmail(raw)
            if let problem = Limits.problem(withEmail: email) { throw .usage("'\(raw)': \(problem)", hint: "name people by their email, as `nexusctl users` lists them.") }
            if seen.insert(email).inserted { emails.append(email) }
        }
        return emails
    }
}
