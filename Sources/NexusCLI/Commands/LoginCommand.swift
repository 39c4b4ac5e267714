import NexusCore

enum LoginCommand {
    static let spec = CommandSpec(
        name: "login", summary: "Log in to an account and save the session in the profile",
        usage: ["<email> [--password-stdin]"],
        details: "The session is saved under $NEXUS_HOME/<profile>/session.json with mode 0600.\nUse --profile to keep several accounts or servers side by side.",
        options: [Accounts.passwordStdin],
        arguments: 1...1,
        jsonFields: ["user", "profile", "server", "offline"],
        examples: [
            ("nexusctl --profile work --server http://chat.example.com:8787 login alice@example.com", "a second account, on another server"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let email = context.arguments[0]
        if let problem = Limits.problem(withEmail: email) { throw .usage(problem) }
        try Accounts.checkWritable(context)
        let password = try Accounts.password(context, confirm: false)
        // The session may belong to another server; --server and $NEXUS_SERVER still win.
        context.session = try? context.profile.loadSession()
        let api = try context.api()
        api.token = nil
        let auth: AuthResponse
        do throws(APIError) {
            auth = try api.login(email: email, password: password)
        } catch .server(429, _, _, let retryAfter) {
            let wait = retryAfter.map { "wait \($0) s" } ?? "wait a while"
            throw CLIError(
                .unavailable, "too many failed logins for \(email) or from this address; \(wait), then try again",
                hint: "the server limits failed logins per account and per address; the wait ends by itself.")
        } catch .server(401, let code, let message, _) where code != "token_expired" {
            // Logging in again is what was just run: point at the two things that can be wrong.
            throw CLIError(
                .auth, message,
                hint: "check the email and the password; a new account is made with `\(Accounts.commandLine(context, "register \(email)"))`.")
        } catch {
            throw context.failure(error)
        }
        return try Accounts.save(auth, context, verb: "Logged in")
    }
}
