import NexusCore

enum ProfilesCommand {
    static let spec = CommandSpec(
        name: "profiles", summary: "List the profiles (accounts) on this machine and which is the default",
        details: """
            A profile is one account on one server, kept in $NEXUS_HOME/<profile>. `login` and
            `register` create one; pick it with --profile NAME or $NEXUS_PROFILE, or make it the
            default with `profile = NAME` in the config file ($XDG_CONFIG_HOME/nexus/config).
            """,
        jsonFields: ["name", "current", "loggedIn", "email", "server", "queued"],
        run: run)

    struct ProfileView: Encodable {
        var name: String
        var current: Bool
        var loggedIn: Bool
        var email: String?
        var server: String?
        var queued: Int
    }

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let home = Profile.home(environment: context.environment)
        var views: [ProfileView] = []
        for name in FileSystem.list(home, directoriesOnly: true) where Profile.problem(withName: name) == nil {
            let profile = Profile(name: name, home: home)
            let session = try? profile.loadSession()
            let queued = (try? Outbox(profile: profile).entries().filter { $0.status != .sent }.count) ?? 0
            guard session != nil || queued > 0 || FileSystem.exists(profile.outbox.path) else { continue }
            views.append(ProfileView(
                name: name, current: name == context.profile.name, loggedIn: session != nil, email: session?.user.email,
                server: session?.server, queued: queued))
        }
        if context.output.json {
            context.output.document(views)
        } else if views.isEmpty {
            context.output.note("No profiles yet. Create one with: nexusctl login <email> (or register).")
        } else {
            context.output.table(
                views.map { ["\($0.current ? "* " : "  ")\($0.name)", "\($0.email ?? "(logged out)")", "\($0.server ?? "")", $0.queued > 0 ? "\($0.queued) queued" : ""] },
                header: ["  PROFILE", "ACCOUNT", "SERVER", "OUTBOX"])
        }
        return .ok
    }
}
