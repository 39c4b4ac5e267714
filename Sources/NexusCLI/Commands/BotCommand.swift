import NexusCore

/// `nexusctl bot`: bot accounts owned by the caller, which post with a token (docs/tokens.md).
enum BotCommand {
    static let name = Value("name", "DISPLAY", help: "the bot's display name (default: <name>)")

    static let spec = CommandSpec(
        name: "bot", summary: "Make, list and delete bot accounts that post with a token",
        usage: ["create <name> [--name DISPLAY] [--scope read|send|all] [--conversation C]... [--expires 90d|never]", "list", "delete <name>"],
        details: """
            A bot is an account you own, with a display name and no password: it logs in only with its token.
            Others see it as "NAME [bot]" and `"bot": true` in JSON. Add it to a conversation like a person, by its
            address (shown by `bot create` and `bot list`): `nexusctl new ADDRESS` for a direct conversation, or with
            others in `nexusctl new --group`.
            """,
        subcommands: [
            CommandSpec(
                name: "create", summary: "Make a bot and print its token, this once",
                usage: ["<name> [--name DISPLAY] [--scope read|send|all] [--conversation C]... [--expires 90d|never]"],
                details: "The token goes to stdout alone on its line; the bot's address and the rest to stderr.",
                options: [name] + TokenOptions.all,
                arguments: 1...1, requirements: [.session],
                jsonFields: ["token", "accessToken", "user"],
                examples: [
                    ("nexusctl bot create deploy-bot --name 'Deploy bot' --scope send --expires never", "a bot for the deploy pipeline"),
                ],
                run: create),
            CommandSpec(
                name: "list", summary: "List your bots, with their addresses and tokens",
                requirements: [.session], jsonFields: ["name", "user", "tokens"], run: list),
            CommandSpec(
                name: "delete", summary: "Delete a bot: its tokens stop working at once; its messages stay",
                usage: ["<name>"], arguments: 1...1, requirements: [.session], run: delete),
        ],
        jsonFields: ["name", "user", "tokens"],
        run: list)

    static func create(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let name = context.arguments[0]
        if let problem = TokenNames.problem(with: name, what: "bot") { throw .usage(problem) }
        let (scope, conversations, expiresIn) = try TokenOptions.parse(context)
        let display = context.invocation[Self.name]
        let created = try context.call { api throws(APIError) in
            try api.createBot(CreateBotRequest(
                name: name, displayName: display, scope: scope, conversations: conversations, expiresIn: expiresIn))
        }
        TokenOptions.printSecret(created, context, what: "bot \(created.user.shownName) <\(created.user.email)>")
        if !context.output.json {
            context.output.note("Add it to a conversation by its address: `nexusctl new \(created.user.email)`.")
        }
        return .ok
    }

    static func list(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let bots = try context.call { api throws(APIError) in try api.bots() }
        if context.output.json {
            context.output.document(bots)
        } else if bots.isEmpty {
            context.output.note("No bots; make one with `nexusctl bot create NAME`.")
        } else {
            context.output.table(
                bots.map { b in
                    let scopes = Set(b.tokens.map(\.scope.rawValue)).sorted().joined(separator: ",")
                    return [TerminalText(b.name), TerminalText(b.user.shownName), TerminalText(b.user.email), "\(scopes.isEmpty ? "-" : scopes)"]
                },
                header: ["NAME", "DISPLAY NAME", "ADDRESS", "SCOPE"])
        }
        return .ok
    }

    static func delete(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let name = context.arguments[0]
        try context.call { api throws(APIError) in try api.deleteBot(name: name) }
        if context.output.json {
            context.output.document(["deleted": name])
        } else {
            context.output.note("Deleted bot '\(name)'; its tokens no longer work.")
        }
        return .ok
    }
}
