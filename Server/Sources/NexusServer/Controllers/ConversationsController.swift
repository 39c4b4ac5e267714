import Hummingbird
import NIOCore
import NexusCore

/// Opening and listing conversations.
struct ConversationsController {
    let users: any UserStore
    let conversations: any ConversationStore
    let services: AppServices

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("conversations", use: create)
        group.get("conversations", use: list)
        group.get("conversations/:id", use: show)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller(.all)
        let me = caller.user
        if caller.access.conversations != nil {
            throw APIError(
                status: .forbidden, code: "insufficient_scope",
                message: "This token is limited to some conversations; it can't open others.")
        }
        let body = try await request.decodeJSON(CreateConversationRequest.self, context: context)
        if body.kind == .group { return try await createGroup(body, creator: me) }
        guard body.members.count == 1 else {
            throw APIError.badRequest("A direct conversation takes exactly one other member.", code: "invalid_members")
        }
        let email = try IdentityInput.email(body.members[0])
        guard let other = try await users.user(email: email) else {
            throw APIError(status: .notFound, code: "user_not_found", message: "No user with email \(email).")
        }
        guard other.id != me.id else {
            throw APIError.badRequest("You can't open a direct conversation with yourself.", code: "invalid_members")
        }
        let (id, created) = try await conversations.openDirect(me.id, other.id)
        if created { services.notifier.notify(users: [me.id, other.id]) }
        guard let conversation = try await conversations.conversation(id: id, viewer: me.id) else {
            throw APIError.conversationNotFound
        }
        return try jsonResponse(
            ConversationResponse(conversation: services.present(conversation), created: created), status: created ? .created : .ok)
    }

    /// A group of the caller and two or more others. Every email must name a user, and
    /// every bot the caller's own, or nothing is created. The name defaults to the members' names.
    private func createGroup(_ body: CreateConversationRequest, creator me: User) async throws -> Response {
        let emails = Array(Set(try body.members.map(IdentityInput.email))).sorted().filter { $0 != me.email }
        guard emails.count >= 2 else {
            throw APIError.badRequest("A group takes at least two other members; for one, open a direct conversation.", code: "invalid_members")
        }
        let limit = services.limits.maxGroupMembers
        guard emails.count < limit else {
            throw APIError.badRequest(
                "A group takes at most \(limit - 1) other members: \(limit) with its creator on this server (nexusd --max-group-members).",
                code: "invalid_members")
        }
        var others: [User] = []
        for email in emails {
            guard let user = try await users.user(email: email) else {
                throw APIError(status: .notFound, code: "user_not_found", message: "No user with email \(email).")
            }
            try await services.checkMayAdd(user, caller: me.id)
            others.append(user)
        }
        var name = try IdentityInput.title(body.name)
            ?? ([me] + others).map(\.displayName).joined(separator: ", ")
        if name.utf8.count > Limits.maxDisplayNameBytes { name = String(name.prefix(97)) + "…" }
        let id = try await conversations.createGroup(creator: me.id, members: others.map(\.id), name: name)
        services.notifier.notify(users: [me.id] + others.map(\.id))
        guard let conversation = try await conversations.conversation(id: id, viewer: me.id) else {
            throw APIError.conversationNotFound
        }
        return try jsonResponse(ConversationResponse(conversation: services.present(conversation), created: true), status: .created)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller(.read)
        let services = services
        let bytes = try await conversations.conversationListJSON(
            viewer: caller.user.id, allowed: caller.access.conversations, present: { services.present($0) })
        return Response(
            status: .ok,
            headers: jsonHeaders(length: bytes.count),
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller
        let id = try context.idParameter()
        guard let conversation = try await conversations.conversation(id: id, viewer: caller.user.id) else {
            throw APIError.conversationNotFound
        }
        try caller.access.check(.read, conversation: id)
        return try jsonResponse(services.present(conversation))
    }
}
