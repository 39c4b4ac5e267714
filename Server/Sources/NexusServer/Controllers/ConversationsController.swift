import Hummingbird
import NIOCore
import NexusWire

/// Opening (Opening) and listing conversations.
struct ConversationsController {
    let conversations: any ConversationStore
    let services: AppServices

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (conversation, created) = try await Opening(services: services).open(caller: try context.caller(.all)) {
            try await request.decodeJSON(CreateConversationRequest.self, context: context)
        }
        return try jsonResponse(ConversationResponse(conversation: conversation, created: created), status: created ? .created : .ok)
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
