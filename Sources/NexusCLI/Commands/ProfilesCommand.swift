import NexusCore

enum ProfilesCommand {
    static let spec = CommandSpec(
        name: "profiles", summary: "List the profiles (accounts) on this machine and which is the default",
        details: """
            A profile is one account on one server, kept in $NEXUS_HOME/<profile>. `login` and
            `register` create one; pick it with --profile NAME or $NEXUS_PROFILE, or make it the
            default with `profile = NAME` in the config file ($XDG_CONFIG_HOME/nexus/config).
            """,
        jsonFields: ["name", "current", "loggedIn", "email", "server", "queued", "failed"],
        run: run)

    struct ProfileView: Encodable {
        var name: String
        var current: Bool
        var loggedIn: Bool
        var email: String?
        var server: String?
        var queued: Int
        var failed: Int

        /// "2 queued, 1 failed", or nothing for an empty outbox.
        var outbox: String {
            [queued > 0 ? "\(queued) queued" : nil, failed > 0 ? "\(failed) failed" : nil].compactMap { $0 }.joined(separator: ", ")
        }
    }

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let views = Profile.all(home: Profile.home(environment: context.environment)).map { p in
            ProfileView(
                name: p.profile.name, current: p.profile.name == context.profile.name, loggedIn: p.session != nil,
                email: p.session?.user.email, server: p.session?.server, queued: p.queued,
                failed: p.failed)
        }
        if context.output.json {
            context.output.document(views)
        } else if views.isEmpty {
            context.output.note("No profiles yet. Create one with: nexusctl login <email> (or register).")
        } else {
            context.output.table(
                views.map { ["\($0.current ? "* " : "  ")\($0.name)", "\($0.email ?? "(logged out)")", "\($0.server ?? "")", "\($0.outbox)"] },
                header: ["  PROFILE", "ACCOUNT", "SERVER", "OUTBOX"])
        }
        return .ok
    }
}
