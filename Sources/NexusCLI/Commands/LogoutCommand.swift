import NexusCore

enum LogoutCommand {
    static let spec = CommandSpec(
        name: "logout", summary: "Revoke the session's token on the server and forget it here",
        details: "Queued messages stay in the outbox and are sent after the next login.",
        requirements: [.session],
        jsonFields: ["profile", "revoked"],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        var revoked = true
        let api = try context.api()
        do throws(APIError) {
            try api.logout()
        } catch {
            switch error {
            case .server(401, _, _, _):
                break  // Already revoked or expired: nothing left to revoke.
            case .unreachable, .interrupted:
                revoked = false
                context.output.warn("could not reach the server to revoke the token (\(error)); it was forgotten here only")
            default:
                throw context.failure(error)
            }
        }
        context.profile.deleteSession()
        if context.output.json {
            context.output.document(["profile": context.profile.name, "revoked": revoked ? "true" : "false"])
        } else {
            context.output.note("Logged out of profile '\(context.profile.name)'.")
        }
        return .ok
    }
}
