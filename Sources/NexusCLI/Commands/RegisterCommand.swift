import NexusCore

enum RegisterCommand {
    static let name = Value("name", "NAME", help: "display name (default: the part of the email before '@')")

    static let spec = CommandSpec(
        name: "register", summary: "Create an account on the server and log in to it",
        usage: ["<email> [--name NAME] [--password-stdin]"],
        details: "Asks for the password twice on the terminal, or reads it from stdin with --password-stdin.\nPasswords need at least 8 characters.",
        options: [name, Accounts.passwordStdin],
        arguments: 1...1,
        jsonFields: ["user", "profile", "server", "offline"],
        examples: [
            ("echo \"$PASSWORD\" | nexusctl register alice@example.com --name Alice --password-stdin", "create an account from a script"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let email = context.arguments[0]
        if let problem = Limits.problem(withEmail: email) { throw .usage(problem) }
        if let name = context.invocation[Self.name], let problem = Identity.problem(withName: name.trimmingSpaces()) {
            throw .usage(problem)
        }
        let password = try Accounts.password(context, confirm: true, rule: Accounts.newPasswordProblem)
        try Accounts.checkWritable(context)
        let api = try context.api()
        let auth: AuthResponse
        do throws(APIError) {
            auth = try api.register(email: email, password: password, displayName: context.invocation[Self.name])
        } catch {
            if case .server(409, _, let message, _) = error {
                throw CLIError(.failure, message, hint: "run `\(Accounts.commandLine(context, "login \(email)"))`.")
            }
            throw context.failure(error)
        }
        return try Accounts.save(auth, context, verb: "Registered and logged in")
    }
}
