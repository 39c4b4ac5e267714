import NexusCore

enum ProfileCommand {
    static let spec = CommandSpec(
        name: "profile", summary: "Show the account's name, email and registration, or set its display name",
        usage: ["[--name NAME]"],
        details: """
            Without --name, shows the account as the server has it. With --name, sets the display name (the rule of
            register's --name); the people you share conversations with see it when their lists next refresh.
            Not the local profiles of --profile: `nexusctl profiles` lists those.
            """,
        options: [OptionSpec("name", .value(placeholder: "NAME"), help: "the new display name")],
        requirements: [.session],
        jsonFields: ["id", "email", "displayName", "createdAt"],
        examples: [
            ("nexusctl profile --name \"Alice Liddell\"", "change your display name"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        var name: String?
        if let given = context.invocation.value("name") {
            let trimmed = given.trimmingSpaces()
            if trimmed.isEmpty { throw .usage("--name needs a display name", hint: "say what people should see, e.g. --name \"Alice Liddell\".") }
            if let problem = Identity.problem(withName: trimmed) { throw .usage(problem) }
            name = trimmed
        }
        let user = try context.call { api throws(APIError) in
            if let name { return try api.setDisplayName(name) }
            return try api.me()
        }
        if name != nil { saveName(user, context) }
        if context.output.json {
            context.output.document(user)
        } else {
            context.output.line("\(user.shownName) <\(user.email)>")
            if let created = user.createdAt { context.output.line("registered: \(LocalTime.short(created))") }
        }
        return .ok
    }

    /// The saved session's copy of the account, which whoami shows offline.
    private static func saveName(_ user: User, _ context: CommandContext) {
        guard !context.tokenFromEnvironment, var saved = try? context.profile.loadSession(), saved.user.id == user.id else { return }
        saved.user.displayName = user.displayName
        try? context.profile.saveSession(saved)
    }
}
