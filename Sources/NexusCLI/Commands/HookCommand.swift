import NexusCore

/// `nexusctl hook`: webhooks. (Hook.swift is `tail -f --exec`'s runner, not this.)
enum HookCommand {
    static let name = Value("name", "NAME", help: "the hook's name, for list, revoke and deliveries")
    static let url = Value("url", "URL", help: "make an outgoing hook POSTing each new message here")
    static let wantedEvents = Value("events", "LIST", help: "with --url: what to send, of \(Webhook.eventKinds.joined(separator: ",")) (default: all)")
    static let limit = Value("limit", "N", help: "at most N attempts, 1 to 1000 (default 50)")

    static let spec = CommandSpec(
        name: "hook", summary: "Webhooks: post into a conversation with curl, or have nexusd POST its new messages to a URL",
        usage: ["[list]", "create <conversation> [--name NAME] [--url URL [--events LIST]]", "revoke <name>", "deliveries <name> [--limit N]"],
        details: """
            An incoming hook is a URL holding a secret: `curl -d 'disk 95% full' URL` posts into the conversation as
            the hook's bot, with no nexusctl and no login. It takes text, JSON {"text": ...}, and Prometheus
            Alertmanager's webhook payload (one message per alert). An outgoing hook (--url) has nexusd POST each new
            message, edit, delete, reaction and membership change of the conversation to a URL as JSON, signed with
            HMAC-SHA256. See docs/webhooks.md.
            """,
        subcommands: [
            CommandSpec(
                name: "list", summary: "List your hooks: name, kind, conversation, target and state",
                details: "An outgoing hook's state is how many deliveries wait, or why nexusd disabled it.",
                requirements: [.session], jsonFields: hookFields, run: list),
            CommandSpec(
                name: "create", summary: "Make a hook for a conversation; prints its URL (incoming) or signing secret (--url)",
                usage: ["<conversation> [--name NAME] [--url URL [--events LIST]]"],
                details: """
                    \(Conversations.argumentHelp)
                    Without --url: an incoming hook. Its URL goes to stdout alone, so `URL=$(nexusctl hook create 12)`
                    keeps it; it holds the hook's secret and is shown only now. Its posts come from a bot named after the
                    hook, which joins the conversation.
                    With --url: an outgoing hook. Its signing secret goes to stdout, shown only now; each request carries
                    X-Nexus-Signature-256: sha256=HMAC-SHA256(secret, body), X-Nexus-Delivery and X-Nexus-Event.
                    It is sent every kind of event (message.created, message.edited, message.deleted, reaction.added,
                    reaction.removed, membership.changed) unless --events names the ones it wants.
                    The name (letters, digits, '.', '-', '_') defaults to <conversation>-in or <conversation>-out.
                    """,
                options: [name, url, wantedEvents],
                arguments: 1...1, requirements: [.session], jsonFields: ["hook", "url", "secret"],
                examples: [
                    ("URL=$(nexusctl hook create 12 --name disk-alerts) && curl -d 'disk 95% full' \"$URL\"", "post from any shell"),
                    ("nexusctl hook create 12 --url https://ci.example/nexus", "tell a service of each new message"),
                    ("nexusctl hook create 12 --url https://ci.example/nexus --events message,edit", "only messages and edits"),
                ],
                run: create),
            CommandSpec(
                name: "revoke", summary: "Revoke a hook: its URL answers 404, and nothing more is delivered",
                usage: ["<name>"], arguments: 1...1, requirements: [.session], jsonFields: hookFields, run: revoke),
            CommandSpec(
                name: "deliveries", summary: "An outgoing hook's recent delivery attempts, newest first",
                usage: ["<name> [--limit N]"],
                details: """
                    Each row: when, the delivery id (the receiver drops repeats by it), the event, which try, the
                    receiver's HTTP status (- when it could not be reached), the time it took, and the error.
                    A failed delivery is tried again after 1 s, 2 s, 4 s … up to an hour between tries; a hook whose
                    every delivery has failed for a day is disabled, and this says why.
                    """,
                options: [limit],
                arguments: 1...1, requirements: [.session],
                jsonFields: ["deliveryId", "event", "messageId", "attempt", "at", "status", "latencyMs", "error"], run: deliveries),
        ],
        requirements: [.session], jsonFields: hookFields, run: list)

    static let hookFields = ["id", "name", "kind", "conversationId", "createdAt", "botUserId", "url", "disabledAt", "disabledReason", "pending", "events"]

    struct CreatedView: Encodable {
        var hook: Webhook
        var url: String?
        var secret: String?
    }

    static func create(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let target = context.invocation[Self.url]
        let events = try context.invocation[wantedEvents].map { list throws(CLIError) in try eventKinds(list, url: target) }
        let id = try Conversations.resolve(context.arguments[0], context)
        let request = CreateHookRequest(conversationId: id, name: context.invocation[Self.name], url: target, events: events)
        let created = try context.call { api throws(APIError) in try api.createHook(request) }
        let hook = created.hook
        let url = try created.path.map { path throws(CLIError) in try publicURL(path, context) }
        if context.output.json {
            context.output.document(CreatedView(hook: hook, url: url, secret: created.secret))
        } else if let url {
            context.output.line("\(url)")
            context.output.note(
                "Made incoming hook '\(hook.name)' for conversation \(hook.conversationId); its posts come from the bot '\(hook.name)'. "
                    + "The URL holds its secret and is shown only now. Try: curl -d 'hello' \"$URL\"")
        } else {
            context.output.line("\(created.secret ?? "")")
            context.output.note(
                "Made outgoing hook '\(hook.name)': each new message of conversation \(hook.conversationId) is POSTed to \(hook.url ?? ""), "
                    + "signed with the secret above (shown only now) in X-Nexus-Signature-256. See docs/webhooks.md.")
        }
        return .ok
    }

    /// `--events`' comma list, checked before anything is asked of the server.
    static func eventKinds(_ list: String, url: String?) throws(CLIError) -> [String] {
        let kinds = Webhook.eventKinds.joined(separator: ", ")
        guard url != nil else { throw .usage("--events is for an outgoing hook", hint: "add --url URL; an incoming hook only posts messages.") }
        let names = list.split(separator: ",", omittingEmptySubsequences: false).map { String($0.filter { !$0.isWhitespace }) }
        if let unknown = names.first(where: { !Webhook.eventKinds.contains($0) }) {
            throw .usage(unknown.isEmpty ? "--events has an empty name in '\(list)'" : "'\(unknown)' is no hook event", hint: "choose from \(kinds), separated by commas.")
        }
        return names
    }

    /// The URL to post to: the server's own address (as this profile reaches it) and the path.
    static func publicURL(_ path: String, _ context: CommandContext) throws(CLIError) -> String {
        let a = try context.serverAddress()
        let host = a.host.contains(":") ? "[\(a.host)]" : a.host
        let port = (a.isTLS && a.port == 443) || (!a.isTLS && a.port == 80) ? "" : ":\(a.port)"
        let base = a.basePath.hasSuffix("/") ? String(a.basePath.dropLast()) : a.basePath
        return "\(a.isTLS ? "https" : "http")://\(host)\(port)\(base)\(path)"
    }

    static func list(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let hooks = try context.call { api throws(APIError) in try api.hooks() }
        if context.output.json {
            context.output.document(HooksResponse(hooks: hooks), items: "hooks")
        } else if hooks.isEmpty {
            context.output.note("No hooks. Make one with: nexusctl hook create <conversation>")
        } else {
            context.output.table(
                hooks.map { h in
                    let target: TerminalText = h.kind == .outgoing ? "\(h.url ?? "")" : "bot \(h.botUserId.map(String.init) ?? "?")"
                    return ["\(h.name)", "\(h.kind.rawValue)", "\(h.conversationId)", target, events(h), state(h)]
                },
                header: ["NAME", "KIND", "CONVERSATION", "TARGET", "EVENTS", "STATE"])
        }
        return .ok
    }

    static func events(_ h: Webhook) -> TerminalText {
        guard h.kind == .outgoing, let events = h.events else { return "message" }
        return Set(events) == Set(Webhook.eventKinds) ? "all" : "\(events.joined(separator: ","))"
    }

    static func state(_ h: Webhook) -> TerminalText {
        if let reason = h.disabledReason { return "disabled: \(reason)" }
        guard h.kind == .outgoing else { return "active" }
        let pending = h.pending ?? 0
        return pending == 0 ? "active" : "active, \(pending) waiting"
    }

    static func revoke(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let name = context.arguments[0]
        let hook = try context.call { api throws(APIError) in try api.revokeHook(named: name) }
        if context.output.json {
            context.output.document(hook)
        } else {
            context.output.note(
                hook.kind == .incoming ? "Revoked hook '\(hook.name)': its URL now answers 404."
                    : "Revoked hook '\(hook.name)': nothing more is delivered to \(hook.url ?? "").")
        }
        return .ok
    }

    static func deliveries(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let name = context.arguments[0]
        let limit = try context.intOption(Self.limit, default: 50, range: 1...1000)
        let response = try context.call { api throws(APIError) in try api.hookDeliveries(named: name, limit: limit) }
        if context.output.json {
            context.output.document(response, items: "attempts")
            return .ok
        }
        if let reason = response.hook.disabledReason { context.output.warn("hook '\(response.hook.name)' is disabled: \(reason)") }
        if response.attempts.isEmpty {
            context.output.note("No delivery attempts yet for hook '\(response.hook.name)'.")
            return .ok
        }
        context.output.table(
            response.attempts.map { a in
                ["\(a.at.iso8601)", "\(a.deliveryId)", "\(a.event)", "\(a.attempt)", "\(a.status.map(String.init) ?? "-")",
                 "\(a.latencyMs) ms", a.error.map { "\($0)" } ?? "delivered"]
            },
            header: ["AT", "DELIVERY", "EVENT", "TRY", "STATUS", "LATENCY", "RESULT"])
        return .ok
    }
}
