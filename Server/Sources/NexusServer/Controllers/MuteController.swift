import Hummingbird
import NexusWire

/// A conversation's mute, for the caller's account (Muting).
struct MuteController {
    let services: AppServices

    @Sendable func mute(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await Muting(services: services).mute(try context.idParameter(), caller: try context.caller) {
            try await request.decodeJSON(MuteRequest.self, context: context)
        })
    }

    @Sendable func unmute(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await Muting(services: services).unmute(try context.idParameter(), caller: try context.caller))
    }
}
