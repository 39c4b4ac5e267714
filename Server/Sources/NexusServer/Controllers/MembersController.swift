import Hummingbird
import NexusCore

/// A group's members after its creation: listing them, and adding, removing, leaving and
/// renaming. Any member may add, remove and rename, and anyone may leave (docs/protocol.md,
/// "Group membership"); a bot joins only through its owner. Each change is an event with a
/// seq, idempotent by localId as a send is. A non-member gets the 404 of an unknown id.
struct MembersController {
    let services: AppServices

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("conversations/:id/members", use: list)
        group.post("conversations/:id/members", use: add)
        group.post("conversations/:id/members/remove", use: remove)
        group.post("conversations/:id/leave", use: leave)
        group.post("conversations/:id/rename", use: rename)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.idParameter()
        _ = try await services.members(of: id, caller: try context.caller, for: .read)
        guard let conversation = try await services.stores.conversations.conversation(id: id, viewer: try context.caller.user.id) else {
            throw APIError.conversationNotFound
        }
        let members = try await services.stores.membership.members(conversationId: id).map {
            Member(user: services.present($0.user), deliveredSeq: $0.deliveredSeq, readSeq: $0.readSeq, joinedAt: $0.joinedAt)
        }
        return try jsonResponse(MembersResponse(conversationId: id, kind: conversation.kind, name: conversation.name, members: members))
    }

    @Sendable func add(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await change(.added, request, context)
    }

    @Sendable func remove(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await change(.removed, request, context)
    }

    @Sendable func leave(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await change(.left, request, context)
    }

    @Sendable func rename(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await change(.renamed, request, context)
    }

    private func change(_ kind: MembershipEvent.Kind, _ request: Request, _ context: AppRequestContext) async throws -> Response {
        let caller = try context.caller
        let id = try context.idParameter()
        // 404 for a non-member first, the same for every token; then the scope.
        let current = try await services.members(of: id, caller: caller, for: .all)
        let body = try await request.decodeJSON(MembershipRequest.self, context: context)
        try MessagesController.validate(localId: body.localId)
        guard let conversation = try await services.stores.conversations.conversation(id: id, viewer: caller.user.id) else {
            throw APIError.conversationNotFound
        }
        guard conversation.kind == .group else {
            throw APIError(
                status: .conflict, code: "direct_conversation",
                message: "A direct conversation always has its two members and no name; create a group for more people.")
        }
        var change = MembershipChange(conversationId: id, actor: caller.user, localId: body.localId, kind: kind)
        switch kind {
        case .added, .removed:
            change.users = try await users(body.emails ?? [], for: kind, caller: caller.user)
            if kind == .added {
                let joining = change.users.filter { !current.contains($0.id) }.count
                let limit = services.limits.maxGroupMembers
                guard current.count + joining <= limit else {
                    throw APIError.badRequest(
                        "A group takes at most \(limit) members on this server (nexusd --max-group-members); it has \(current.count).",
                        code: "invalid_members")
                }
            }
        case .renamed:
            guard var name = try IdentityInput.title(body.name) else {
                throw APIError.badRequest("A group's name can't be empty.", code: "invalid_name")
            }
            if name.utf8.count > Limits.maxDisplayNameBytes { name = String(name.prefix(97)) + "…" }
            change.name = name
        case .left:
            break
        }

        let outcome = try await services.stores.membership.apply(change)
        let response: MembershipResponse
        switch outcome {
        case .created(let message, let before, let after):
            services.membership.forget(id)
            services.notifier.notify(users: Set(before + after))
            response = MembershipResponse(
                localId: body.localId, status: .created, message: message, conversation: try await shown(id, viewer: caller.user.id))
        case .duplicate(let message):
            guard message.conversationId == id, message.membership != nil else {
                throw APIError(
                    status: .conflict, code: "local_id_used",
                    message: "This localId was used for another message or change; use a new one.")
            }
            response = MembershipResponse(
                localId: body.localId, status: .duplicate, message: message, conversation: try await shown(id, viewer: caller.user.id))
        case .unchanged(let note):
            response = MembershipResponse(
                localId: body.localId, status: .unchanged, conversation: try await shown(id, viewer: caller.user.id), note: note)
        }
        return try jsonResponse(response, status: response.status == .created ? .created : .ok)
    }

    private func shown(_ id: Int64, viewer: Int64) async throws -> Conversation? {
        try await services.stores.conversations.conversation(id: id, viewer: viewer).map(services.present)
    }

    /// The users `emails` name, each once; 404 `user_not_found` for an unknown one, so
    /// nothing changes unless every one exists. A bot may be added by its owner only.
    private func users(_ emails: [String], for kind: MembershipEvent.Kind, caller: User) async throws -> [User] {
        let normalized = Array(Set(try emails.map(IdentityInput.email))).sorted()
        guard !normalized.isEmpty else {
            throw APIError.badRequest("Name at least one member by email.", code: "invalid_members")
        }
        // A change names the others of a full group at most (nexusd --max-group-members).
        let limit = services.limits.maxGroupMembers
        guard normalized.count < limit else {
            throw APIError.badRequest(
                "A change takes at most \(limit - 1) members: a group takes at most \(limit) on this server (nexusd --max-group-members).",
                code: "invalid_members")
        }
        if kind == .removed, normalized.contains(caller.email) {
            throw APIError.badRequest("To take yourself out of a group, leave it.", code: "invalid_members")
        }
        var users: [User] = []
        for email in normalized {
            guard let user = try await services.stores.users.user(email: email) else {
                throw APIError(status: .notFound, code: "user_not_found", message: "No user with email \(email).")
            }
            if kind == .added { try await services.checkMayAdd(user, caller: caller.id) }
            users.append(user)
        }
        return users
    }
}
