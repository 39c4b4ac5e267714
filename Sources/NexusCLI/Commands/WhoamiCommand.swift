import NexusCore

enum WhoamiCommand {
    static let spec = CommandSpec(
        name: "whoami", summary: "Show the logged-in account, profile and server",
        details: "Checks the session with the server; when the server can't be reached it answers from the saved session and says so.",
        requirements: [.session], deliversQueueAfterwards: true,
        jsonFields: ["user", "profile", "server", "offline"],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let session = try context.requireSession()
        var user = session.user
        var offline = false
        let api = try context.api()
        do throws(APIError) {
            user = try api.me()
        } catch {
            guard case .unreachable = error else { throw context.failure(error) }
            offline = true
            context.output.warn("offline: \(error); showing the saved session")
        }
        if context.output.json {
            context.output.document(AccountView(user: user, profile: context.profile.name, server: session.server, offline: offline))
        } else {
            context.output.line("\(user.displayName) <\(user.email)>")
            context.output.line("profile: \(context.profile.name)")
            context.output.line("server:  \(session.server)")
        }
        return .ok
    }
}
