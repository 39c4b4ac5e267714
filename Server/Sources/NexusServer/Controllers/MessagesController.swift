import Hummingbird
import NexusWire

/// Sending into a conversation and reading its messages.
struct MessagesController {
    let messages: any MessageStore
    let services: AppServices

    @Sendable func send(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (message, duplicate) = try await Sending(services: services).send(to: try context.idParameter(), caller: try context.caller) {
            try await request.decodeJSON(SendRequest.self, context: context, reading: SendRequest.read(json:))
        }
        // Written by hand (JSONWriter): the hottest answer nexusd gives.
        return jsonResponse(bytes: SendResponse(message: message, duplicate: duplicate).jsonBytes(), status: duplicate ? .ok : .created)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.idParameter()
        _ = try await services.members(of: id, caller: try context.caller, for: .read)
        var before = try request.queryInt("before", in: 0...Int64.max)
        let beforeId = try request.queryInt("beforeId", in: RequestNumbers.id)
        let beforeTime = try request.uri.queryParameters["beforeTime"].map { text in
            guard let time = Timestamp(iso8601: String(text)) else {
                throw APIError.badRequest("beforeTime must be an ISO-8601 time such as 2026-11-22T12:00:00Z.", code: "invalid_query")
            }
            return time
        }
        guard [before != nil, beforeId != nil, beforeTime != nil].filter({ $0 }).count <= 1 else {
            throw APIError.badRequest("Give at most one of before, beforeId and beforeTime.", code: "invalid_query")
        }
        if let beforeId {
            guard let seq = try await messages.seq(ofMessage: beforeId, conversationId: id) else {
                throw APIError(status: .notFound, code: "message_not_found", message: "No message \(beforeId) in this conversation.")
            }
            before = seq
        }
        if let beforeTime {
            before = try await messages.firstSeq(sentAtOrAfter: beforeTime, conversationId: id)
        }
        let limit = try request.queryInt("limit", in: RequestNumbers.pageSize) ?? Int64(Limits.defaultPageSize)
        let page = try await messages.messages(conversationId: id, before: before, limit: Int(limit))
        return try jsonResponse(page)
    }

    /// Many messages at once, for outbox flushes: one answer per item, in order (Sending.batch).
    @Sendable func batch(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller(.send)
        let body = try await request.decodeJSON(BatchSendRequest.self, context: context, limit: Limits.maxBatchBytes)
        guard body.messages.count <= Limits.maxBatchItems else {
            throw APIError(
                status: .contentTooLarge, code: "too_many_items",
                message: "A batch takes at most \(Limits.maxBatchItems) messages; split it.")
        }
        return try jsonResponse(BatchSendResponse(results: try await Sending(services: services).batch(body.messages, caller: caller)))
    }
}
