import NexusCore

enum PasswdCommand {
    static let keepSessions = Flag("keep-sessions", help: "leave the account's other sessions logged in")
    static let passwordStdin = Accounts.passwordStdin.helped("read the old password, then the new one, from the first two lines of stdin")

    static let spec = CommandSpec(
        name: "passwd", summary: "Change the account's password",
        usage: ["[--keep-sessions] [--password-stdin]"],
        details: """
            Asks for the old password, then the new one twice, on the terminal; with --password-stdin reads two lines,
            the old password then the new one. The new one needs at least 8 characters.
            Signs out the account's other sessions (other machines and profiles) unless --keep-sessions; this one stays
            logged in. Access tokens and bots keep working: `nexusctl token revoke` ends those.
            Needs a session from login or register: an access token can't change the password (exit 4).
            """,
        options: [keepSessions, passwordStdin],
        requirements: [.session],
        jsonFields: ["changed", "otherSessionsEnded"],
        examples: [
            ("printf '%s\\n%s\\n' \"$OLD\" \"$NEW\" | nexusctl passwd --password-stdin", "change the password from a script"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let old = try Accounts.password(context, confirm: false, prompt: "Old password")
        let new = try Accounts.password(context, confirm: true, prompt: "New password", rule: Accounts.newPasswordProblem)
        let keep = context.invocation[keepSessions]
        let api = try context.api()
        do throws(APIError) {
            try api.changePassword(old: old, new: new, keepSessions: keep)
        } catch {
            var failure = context.failure(error)
            if case .server(403, "wrong_password", _, _) = error {
                failure.hint = "nothing was changed; run `\(Accounts.commandLine(context, "passwd"))` again with the current password."
            }
            throw failure
        }
        if context.output.json {
            context.output.document(["changed": true, "otherSessionsEnded": !keep])
        } else {
            context.output.note(keep ? "Password changed; other sessions stay logged in." : "Password changed; other sessions were logged out.")
        }
        return .ok
    }
}
