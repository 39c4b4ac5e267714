import Hummingbird
import NexusWire

/// Receipts (delivered and read watermarks), message status, and typing.
struct ReceiptsController {
    let receipts: any ReceiptStore
    let messages: any MessageStore
    let services: AppServices

    @Sendable func receipts(_ request: Request, context: AppRequestContext) async throws -> Response {
        let conversation = try await Receipting(services: services).advance(in: try context.idParameter(), caller: try context.caller) {
            try await request.decodeJSON(ReceiptsRequest.self, context: context)
        }
        return try jsonResponse(conversation)
    }

    @Sendable func typing(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await Receipting(services: services).typing(in: try context.idParameter(), caller: try context.caller))
    }

    @Sendable func status(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller
        guard let id = context.parameters.get("id").flatMap({ CheckedNumbers.parse($0, in: RequestNumbers.id) }),
              let message = try await messages.message(id: id, viewer: caller.user.id)
        else {
            throw APIError(status: .notFound, code: "message_not_found", message: "Message not found.")
        }
        try caller.access.check(.read, conversation: message.conversationId)
        return try await answer(message)
    }

    /// The status of one of the caller's own messages, by its localId.
    @Sendable func statusByLocalId(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller(.read)
        let me = caller.user
        guard let localId = request.uri.queryParameters["localId"].map(String.init), !localId.isEmpty else {
            throw APIError.badRequest("Give the localId of one of your messages: ?localId=…", code: "invalid_query")
        }
        guard let message = try await messages.message(localId: localId, sender: me.id) else {
            throw APIError(status: .notFound, code: "message_not_found", message: "You sent no message with localId \(localId).")
        }
        try caller.access.check(.read, conversation: message.conversationId)
        return try await answer(message)
    }

    private func answer(_ message: Message) async throws -> Response {
        let members = try await receipts.status(of: message).map { m in
            MessageStatus.Member(user: services.present(m.user), deliveredAt: m.deliveredAt, readAt: m.readAt)
        }
        return try jsonResponse(MessageStatus(message: message, members: members))
    }
}
