import NexusCore

enum WhoamiCommand {
    static let spec = CommandSpec(
        name: "whoami", summary: "Show the logged-in account, profile and server",
        details: """
            Checks the session with the server; when the session's own server can't be reached it answers from the saved
            session and says so. Another server that can't be reached (--server, $NEXUS_SERVER) is an error, exit 75:
            the saved session says nothing of an account there.
            The server shown is the one this command used: --server, else $NEXUS_SERVER, else the profile's own.
            It also says when the session lapses: each command renews it (nexusd's --session-idle, 30 days by default),
            and the new time is saved with the session.
            """,
        requirements: [.session], deliversQueueAfterwards: true,
        jsonFields: ["user", "profile", "server", "offline", "sessionExpiresAt"],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let session = try context.requireSession()
        var user = session.user
        var offline = false
        let api = try context.api()
        // The server this command used (--server and $NEXUS_SERVER win over the saved one).
        let server = try context.serverAddresses().map(\.description).joined(separator: ",")
        do throws(APIError) {
            user = try api.me()
        } catch {
            guard case .unreachable = error else { throw context.failure(error) }
            // The saved session says who I am on its own server only: shown under another
            // address it would claim an account that server may never have heard of.
            let own = (try? ServerAddress.list(parsing: session.server)) ?? []
            if context.tokenFromEnvironment { throw context.failure(error) }
            guard try context.serverAddresses() == own else {
                var failure = context.failure(error)
                failure.hint = "the saved session is for \(session.server), not \(server); drop --server (or $NEXUS_SERVER), or log in there with `nexusctl login <email> --server \(server)`."
                throw failure
            }
            offline = true
            context.output.warn("offline: \(error); showing the saved session")
        }
        // A token's own expiry is `token list`'s; this is the sliding one of a session.
        let expires = context.tokenFromEnvironment || session.token.hasPrefix(CommandContext.accessTokenPrefix)
            ? nil : api.sessionExpiresAt ?? session.expiresAt
        if context.output.json {
            context.output.document(AccountView(
                user: user, profile: context.profile.name, server: server, offline: offline, sessionExpiresAt: expires))
        } else {
            context.output.line("\(user.displayName) <\(user.email)>")
            context.output.line("profile: \(context.profile.name)")
            context.output.line("server:  \(server)")
            if let expires { context.output.line("session: renewed by use; lapses \(LocalTime.short(expires)) if unused") }
        }
        return .ok
    }
}
