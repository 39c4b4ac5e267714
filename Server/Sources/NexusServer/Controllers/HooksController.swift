import Hummingbird
import NexusWire

/// Managing one's webhooks: create, list, revoke, and an outgoing hook's delivery attempts.
struct HooksController {
    let hooks: any HookStore
    let services: AppServices

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        // Hooks hold secrets and post as bots: like tokens, only a session manages them.
        let me = try context.caller(.manage).user
        let body = try await request.decodeJSON(CreateHookRequest.self, context: context)
        _ = try await services.members(of: body.conversationId, viewer: me.id)
        if let name = body.name { try Self.validate(name: name) }
        if let url = body.url { try Self.validate(url: url) }
        if body.events != nil, body.url == nil {
            throw APIError.badRequest("Only an outgoing hook (with a url) chooses events; an incoming hook posts messages.", code: "invalid_events")
        }
        let events = try HookEventKind.parse(body.events)
        let now = services.clock()
        let kind = body.url == nil ? "in" : "out"
        // Unnamed: "<conversation>-in" (or -out), then -2, -3 … past the owner's taken names.
        let names = body.name.map { [$0] } ?? ([""] + (2...20).map { "-\($0)" }).map { "\(body.conversationId)-\(kind)" + $0 }
        for name in names {
            if let url = body.url {
                let secret = HookSigning.newSecret()
                if let hook = try await createOutgoing(
                    owner: me.id, body.conversationId, name: name, url: url, secret: secret, events: events, at: now)
                {
                    services.hooks.addOutgoing(body.conversationId)
                    return try jsonResponse(CreateHookResponse(hook: hook, secret: secret), status: .created)
                }
            } else {
                let secret = Tokens.generate()
                if let hook = try await createIncoming(owner: me, body.conversationId, name: name, secretHash: Tokens.hash(secret), at: now) {
                    return try jsonResponse(CreateHookResponse(hook: hook, path: "/v1/hooks/in/" + secret), status: .created)
                }
            }
        }
        throw APIError(
            status: .conflict, code: "hook_name_taken",
            message: "You already have a hook named '\(names[0])'; choose another name with --name, or revoke that one.")
    }

    /// The hook's bot joins like a person: it counts toward `nexusd --max-group-members`,
    /// and its join is a membership event every member sees, and outgoing hooks are sent.
    private func createIncoming(owner: User, _ conversation: Int64, name: String, secretHash: String, at now: Timestamp) async throws -> Webhook? {
        let limit = services.limits.maxGroupMembers
        do {
            guard let made = try await hooks.createIncoming(
                owner: owner, conversationId: conversation, name: name, secretHash: secretHash, maxMembers: limit, at: now)
            else { return nil }
            await services.events.publish(.committed(Commit(
                changes: [Commit.Change(conversationId: conversation, kind: .membership, seq: made.joined.seq)],
                wake: Array(Set(made.before + made.after)), membersChanged: [conversation])))
            return made.hook
        } catch let full as HookBotOverLimit {
            throw APIError(
                status: .conflict, code: "too_many_members",
                message: "An incoming hook adds its bot as a member, and this conversation has \(full.members) of the \(limit) "
                    + "this server allows (nexusd --max-group-members); remove a member or a hook's bot first.")
        }
    }

    private func createOutgoing(
        owner: Int64, _ conversation: Int64, name: String, url: String, secret: String, events: String?, at now: Timestamp
    ) async throws -> Webhook? {
        let limits = services.limits
        do {
            return try await hooks.createOutgoing(
                owner: owner, conversationId: conversation, name: name, url: url, secret: secret, events: events, limits: limits, at: now)
        } catch let over as OutgoingHooksOverLimit {
            let (count, whose) = over.mine ? (limits.maxOutgoingHooksPerMemberPerConversation, "You have") : (limits.maxOutgoingHooksPerConversation, "This conversation has")
            throw APIError(
                status: .conflict, code: "too_many_hooks",
                message: "\(whose) \(count) outgoing hooks here, the most this server allows (each message is posted to every one); "
                    + "revoke one first (`nexusctl hook list` shows yours).")
        }
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(HooksResponse(hooks: try await hooks.hooks(owner: context.caller(.manage).user.id)))
    }

    @Sendable func revoke(_ request: Request, context: AppRequestContext) async throws -> Response {
        let hook = try await named(context)
        try await hooks.revoke(hookId: hook.id, at: services.clock())
        return try jsonResponse(["hook": hook])
    }

    @Sendable func deliveries(_ request: Request, context: AppRequestContext) async throws -> Response {
        let hook = try await named(context)
        let limit = try request.queryInt("limit", in: 1...1000) ?? 50
        return try jsonResponse(HookDeliveriesResponse(hook: hook, attempts: try await hooks.attempts(hookId: hook.id, limit: Int(limit))))
    }

    /// The caller's live hook by the name in the path; another user's is as unknown as none.
    private func named(_ context: AppRequestContext) async throws -> Webhook {
        let me = try context.caller(.manage).user
        let name = context.parameters.get("name") ?? ""
        guard let hook = try await hooks.hooks(owner: me.id).first(where: { $0.name == name }) else {
            throw APIError(status: .notFound, code: "hook_not_found", message: "You have no hook named '\(name)'; `nexusctl hook list` shows yours.")
        }
        return hook
    }

    static func validate(name: String) throws {
        let allowed = name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x2E || c == 0x5F
        }
        guard allowed, (1...64).contains(name.utf8.count), name != "in", name.first != "." else {
            throw APIError.badRequest(
                "A hook name is 1 to 64 letters, digits, '.', '-' or '_' (and not 'in'); '\(name)' is not.", code: "invalid_hook_name")
        }
    }

    static func validate(url: String) throws {
        let lower = url.lowercased()
        let rest = lower.hasPrefix("https://") ? lower.dropFirst(8) : lower.hasPrefix("http://") ? lower.dropFirst(7) : nil
        guard let rest, let host = rest.split(separator: "/", maxSplits: 1).first, !host.isEmpty, url.utf8.count <= 2048,
              !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F })
        else {
            throw APIError.badRequest("The hook's URL must be an http:// or https:// URL with a host, such as https://ci.example/hook.", code: "invalid_url")
        }
    }
}
