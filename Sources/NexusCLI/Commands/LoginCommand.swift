import NexusCore

enum LoginCommand {
    static let tokenStdin = Flag("token-stdin", help: "log in with an access token read from the first line of stdin", secret: "token")

    static let spec = CommandSpec(
        name: "login", summary: "Log in to an account and save the session in the profile",
        usage: ["<email> [--password-stdin]", "--token-stdin"],
        details: """
            The session is saved under $NEXUS_HOME/<profile>/session.json with mode 0600.
            Use --profile to keep several accounts or servers side by side.
            --token-stdin saves an access token (`nexusctl token create`, `nexusctl bot create`) instead, read from
            the first line of stdin; $NEXUS_TOKEN uses one for a single command and saves nothing (docs/tokens.md).
            """,
        options: [Accounts.passwordStdin, tokenStdin],
        arguments: 0...1,
        jsonFields: ["user", "profile", "server", "offline"],
        examples: [
            ("nexusctl --profile work --server http://chat.example.com:8787 login alice@example.com", "a second account, on another server"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        if context.invocation[tokenStdin] { return try withToken(context) }
        guard let email = context.arguments.first else {
            throw .usage("login needs an email, or --token-stdin with an access token on stdin")
        }
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

    /// Checks the token with the server (who it belongs to), then saves it like a session.
    static func withToken(_ context: CommandContext) throws(CLIError) -> ExitCode {
        guard context.arguments.isEmpty else { throw .usage("--token-stdin takes no email: the token says whose it is") }
        guard let token = context.terminal.readInputLine()?.trimmingSpaces(), !token.isEmpty else {
            throw .usage("--token-stdin was given but stdin held no token")
        }
        try Accounts.checkWritable(context)
        context.session = try? context.profile.loadSession()
        let api = try context.api()
        api.token = token
        let user: User
        do throws(APIError) {
            user = try api.me()
        } catch {
            throw context.failure(error, token: token)
        }
        return try Accounts.save(AuthResponse(token: token, user: user), context, verb: "Logged in with a token")
    }
}
