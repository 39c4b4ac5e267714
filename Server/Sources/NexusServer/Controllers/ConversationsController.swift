import Hummingbird
import NexusCore

/// Opening and listing conversations.
struct ConversationsController {
    let services: AppServices

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("conversations", use: create)
        group.get("conversations", use: list)
        group.get("conversations/:id", use: show)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try await services.authenticate(request).user
        let body = try await request.decodeJSON(CreateConversationRequest.self, context: context)
        guard body.kind == .direct else {
            throw APIError.badRequest("Group conversations are not supported by this server yet.", code: "unsupported")
        }
        guard body.members.count == 1 else {
            throw APIError.badRequest("A direct conversation takes exactly one other member.", code: "invalid_members")
        }
        let email = body.members[0].trimmingSpaces().lowercased()
        guard let other = try await services.repository.user(email: email) else {
            throw APIError(status: .notFound, code: "user_not_found", message: "No user with email \(email).")
        }
        guard other.id != me.id else {
            throw APIError.badRequest("You can't open a direct conversation with yourself.", code: "invalid_members")
        }
        let (id, created) = try await services.repository.openDirect(me.id, other.id)
        if created { services.notifier.notify(users: [me.id, other.id]) }
        guard let conversation = try await services.repository.conversation(id: id, viewer: me.id) else {
            throw APIError.conversationNotFound
        }
        return try jsonResponse(ConversationResponse(conversation: conversation, created: created), status: created ? .created : .ok)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try await services.authenticate(request).user
        return try jsonResponse(ConversationsResponse(conversations: try await services.repository.conversations(viewer: me.id)))
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try await services.authenticate(request).user
        let id = try context.idParameter()
        guard let conversation = try await services.repository.conversation(id: id, viewer: me.id) else {
            throw APIError.conversationNotFound
        }
        return try jsonResponse(conversation)
    }
}
