import NexusCore

enum UsersCommand {
    static let search = Value("search", short: "s", "QUERY", help: "only names or emails containing QUERY")

    static let spec = CommandSpec(
        name: "users", summary: "List the other people on the server",
        usage: ["[--search QUERY]"],
        details: """
            "● online" means the person has nexusctl following now: a `tail -f`, `convos -f` or
            `send --each-line` running (it stays so up to 5 s after one is killed). A one-off
            command (a `send`, `users`, even `register`) moves only their "Last seen".
            """,
        options: [search],
        requirements: [.session], deliversQueueAfterwards: true,
        jsonFields: ["id", "email", "displayName", "online", "lastSeenAt", "createdAt", "picture"],
        examples: [
            ("nexusctl users --search ali --fields email", "find someone's email"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let search = context.invocation[Self.search]
        let users = try context.call { api throws(APIError) in try api.users(search: search) }
        if context.output.json {
            context.output.document(users)
        } else if users.isEmpty {
            context.output.note(search == nil ? "No Contacts Found. No other users are registered yet.\nInvite friends to join!" : "No users match.")
        } else {
            let now = Timestamp.now()
            context.output.table(
                users.map { u in
                    let seen = u.lastSeenAt.map { SmartTime.lastSeen($0, now: now) } ?? "never seen"
                    let presence = u.online == true ? context.output.paint("● online", .green) : "\(seen)"
                    return ["\(u.shownName)", "\(u.email)", presence]
                },
                header: ["NAME", "EMAIL", "SEEN"])
        }
        return .ok
    }
}
