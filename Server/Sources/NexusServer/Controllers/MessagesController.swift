import Hummingbird
import NexusCore

/// Sending into a conversation and reading its messages.
struct MessagesController {
    let services: AppServices

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("conversations/:id/messages", use: send)
        group.get("conversations/:id/messages", use: list)
    }

    @Sendable func send(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try await services.authenticate(request).user
        let id = try context.idParameter()
        let members = try await services.members(of: id, viewer: me.id)
        let body = try await request.decodeJSON(SendRequest.self, context: context)
        try Self.validate(body)
        let outcome = try await services.repository.send(
            NewMessage(conversationId: id, senderId: me.id, localId: body.localId, text: body.text))
        switch outcome {
        case .created(let message):
            services.notifier.notify(users: members)
            return try jsonResponse(SendResponse(message: message, duplicate: false), status: .created)
        case .duplicate(let message) where message.conversationId != id:
            throw APIError(
                status: .conflict, code: "local_id_reused",
                message: "This localId was already used for a message in another conversation; send with a new one.")
        case .duplicate(let message):
            return try jsonResponse(SendResponse(message: message, duplicate: true))
        }
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try await services.authenticate(request).user
        let id = try context.idParameter()
        _ = try await services.members(of: id, viewer: me.id)
        let before = try request.queryInt("before")
        let limit = try request.queryInt("limit") ?? Int64(Limits.defaultPageSize)
        guard (1...Int64(Limits.maxPageSize)).contains(limit) else {
            throw APIError.badRequest("limit must be between 1 and \(Limits.maxPageSize).", code: "invalid_query")
        }
        let page = try await services.repository.messages(conversationId: id, before: before, limit: Int(limit))
        return try jsonResponse(page)
    }

    static func validate(_ body: SendRequest) throws {
        let localIdBytes = body.localId.utf8.count
        if localIdBytes == 0 || localIdBytes > Limits.maxLocalIdBytes
            || body.localId.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
        {
            throw APIError.badRequest(
                "localId must be 1 to \(Limits.maxLocalIdBytes) printable characters without spaces.", code: "invalid_local_id")
        }
        if let problem = Limits.problem(withText: body.text) {
            let tooLarge = body.text.utf8.count > Limits.maxTextBytes
            throw APIError(
                status: tooLarge ? .contentTooLarge : .badRequest,
                code: tooLarge ? "message_too_large" : "empty_message",
                message: problem.prefix(1).uppercased() + problem.dropFirst() + ".")
        }
    }
}
