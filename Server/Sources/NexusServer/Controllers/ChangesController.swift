import Hummingbird
import NexusWire

/// Changes to sent messages (Changing): one endpoint takes a list, as outbox flushes send
/// them, with one answer per item.
struct ChangesController {
    let services: AppServices

    @Sendable func apply(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller(.send)
        let body = try await request.decodeJSON(ChangesRequest.self, context: context, limit: Limits.maxBatchBytes)
        guard body.changes.count <= Limits.maxBatchItems else {
            throw APIError(
                status: .contentTooLarge, code: "too_many_items", message: "A batch takes at most \(Limits.maxBatchItems) changes; split it.")
        }
        let results = try await Changing(services: services).apply(body.changes, caller: caller, logger: context.logger)
        return try jsonResponse(ChangesResponse(results: results))
    }
}
