import Hummingbird
import NexusWire

/// The user directory.
struct UsersController {
    let users: any UserStore
    let services: AppServices

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller(.read).user
        let search = try request.uri.queryParameters["search"].map { raw in
            let text = String(raw)
            try IdentityInput.rejectNUL(text, field: "search", code: "invalid_query")
            return String(decoding: text._nfcCodeUnits, as: UTF8.self)
        }
        let users = try await users.users(excluding: me.id, search: search)
        return try jsonResponse(UsersResponse(users: try await self.users.withPictures(users).map(services.present)))
    }
}
