import Hummingbird
import NexusWire

/// A live client's goodbye: `nexusctl` says it when it exits cleanly, so its user goes
/// offline at once instead of after the grace.
struct PresenceController {
    let services: AppServices

    /// Any token may end its own user's client: it only makes them offline sooner.
    @Sendable func leave(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller.user
        guard let client = context.parameters.get("client"), AppServices.isClientName(client) else {
            throw APIError.badRequest("The client name must be 1 to 64 letters, digits, '-' or '_'.", code: "invalid_client")
        }
        try await services.leave(user: me.id, client: client)
        return Response(status: .noContent)
    }
}
