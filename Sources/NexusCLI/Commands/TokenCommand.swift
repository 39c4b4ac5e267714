import NexusCore

/// `nexusctl token`: access tokens for scripts, cron and CI (docs/tokens.md).
enum TokenCommand {
    static let spec = CommandSpec(
        name: "token", summary: "Make, list and revoke access tokens for scripts, cron jobs and CI",
        usage: ["create <name> [--scope read|send|all] [--conversation C]... [--expires 90d|never]", "list", "revoke <name>"],
        details: """
            An access token works like a session with less power: read, send (and flush) or all, over all your
            conversations or only the ones named. Use it with `nexusctl login --token-stdin` or $NEXUS_TOKEN.
            Only a session from `nexusctl login` with a password makes, lists and revokes tokens. See docs/tokens.md.
            """,
        subcommands: [
            CommandSpec(
                name: "create", summary: "Make an access token and print its secret, this once",
                usage: ["<name> [--scope read|send|all] [--conversation C]... [--expires 90d|never]"],
                details: """
                    The secret goes to stdout alone on its line (so `TOKEN=$(nexusctl token create ci)` keeps it),
                    the rest to stderr. The server keeps only its hash: a lost secret can't be shown again; revoke
                    the token and make another. \(Conversations.argumentHelp)
                    """,
                options: TokenOptions.all, arguments: 1...1, requirements: [.session],
                jsonFields: ["token", "accessToken", "user"],
                examples: [
                    ("nexusctl token create ci --scope send --conversation 12 --expires 30d", "a CI job that may post into conversation 12 only"),
                    ("nexusctl token create dashboard --scope read --expires never", "a read-only token that never expires"),
                ],
                run: create),
            CommandSpec(
                name: "list", summary: "List your access tokens (never their secrets)",
                requirements: [.session], jsonFields: TokenOptions.fields, run: list),
            CommandSpec(
                name: "revoke", summary: "Revoke an access token: it stops working at once",
                usage: ["<name>"], arguments: 1...1, requirements: [.session], run: revoke),
        ],
        jsonFields: TokenOptions.fields,
        run: list)

    static func create(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let name = context.arguments[0]
        if let problem = TokenNames.problem(with: name, what: "token") { throw .usage(problem) }
        let (scope, conversations, expiresIn) = try TokenOptions.parse(context)
        let created = try context.call { api throws(APIError) in
            try api.createToken(CreateTokenRequest(name: name, scope: scope, conversations: conversations, expiresIn: expiresIn))
        }
        TokenOptions.printSecret(created, context, what: "token '\(name)'")
        return .ok
    }

    static func list(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let tokens = try context.call { api throws(APIError) in try api.tokens() }
        if context.output.json {
            context.output.document(tokens)
        } else if tokens.isEmpty {
            context.output.note("No access tokens; make one with `nexusctl token create NAME`.")
        } else {
            context.output.table(tokens.map(TokenOptions.row), header: TokenOptions.header)
        }
        return .ok
    }

    static func revoke(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let name = context.arguments[0]
        try context.call { api throws(APIError) in try api.revokeToken(name: name) }
        if context.output.json {
            context.output.document(["revoked": name])
        } else {
            context.output.note("Revoked token '\(name)'.")
        }
        return .ok
    }
}

/// The options and output that `token create` and `bot create` share.
enum TokenOptions {
    static let scope = Value("scope", "read|send|all", help: "what the token may do (default: send): read, send (and flush), or all a session can do but manage tokens")
    static let conversations = Values("conversation", "C", help: "limit the token to this conversation; repeat for several (default: all of them)")
    static let expires = Value("expires", "90d|never", help: "when the token stops working: a duration in s, m, h, d or w, or never (default: 90d)")
    static let all: [any OptionKey] = [scope, conversations, expires]

    static let fields = ["name", "scope", "conversations", "createdAt", "lastUsedAt", "expiresAt"]
    static let header: [TerminalText] = ["NAME", "SCOPE", "CONVERSATIONS", "CREATED", "LAST USED", "EXPIRES"]

    static func parse(_ context: CommandContext) throws(CLIError) -> (TokenScope, [Int64], Int64?) {
        let scopeText = context.invocation[Self.scope] ?? "send"
        guard let scope = TokenScope(rawValue: scopeText) else {
            throw .usage("--scope takes read, send or all; got '\(scopeText)'")
        }
        var conversations: [Int64] = []
        for argument in context.invocation[Self.conversations] {
            conversations.append(try Conversations.resolve(argument, context))
        }
        let expires = context.invocation[Self.expires] ?? "90d"
        var expiresIn: Int64?
        if expires != "never" {
            guard let seconds = TokenNames.seconds(expires) else {
                throw .usage("--expires takes a duration such as 90d, 12h or 2w, or never; got '\(expires)'")
            }
            expiresIn = seconds
        }
        return (scope, conversations, expiresIn)
    }

    static func row(_ t: AccessToken) -> [TerminalText] {
        let now = Timestamp.now()
        let expires = t.expiresAt.map { $0 <= now ? "expired" : LocalTime.short($0, now: now) } ?? "never"
        return [
            TerminalText(t.name), "\(t.scope.rawValue)",
            "\(t.conversations.isEmpty ? "all" : t.conversations.map(String.init).joined(separator: ","))",
            "\(LocalTime.short(t.createdAt, now: now))", "\(t.lastUsedAt.map { LocalTime.short($0, now: now) } ?? "never")",
            "\(expires)",
        ]
    }

    /// The secret alone on stdout; what it is on stderr. With --json, one document.
    static func printSecret(_ created: CreatedToken, _ context: CommandContext, what: String) {
        if context.output.json {
            context.output.document(created)
            return
        }
        context.output.line(TerminalText(created.token))
        let t = created.accessToken
        let reach = t.conversations.isEmpty ? "all conversations" : "conversations " + t.conversations.map(String.init).joined(separator: ", ")
        let until = t.expiresAt.map { "until " + LocalTime.short($0) } ?? "with no expiry"
        context.output.note("Made \(what): scope \(t.scope.rawValue), \(reach), \(until).")
        context.output.note("This is the only time the secret is shown: keep it now (e.g. in your CI's secret store).")
    }
}
