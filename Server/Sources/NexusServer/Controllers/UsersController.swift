import Hummingbird
import NexusCore

/// The user directory.
struct UsersController {
    let services: AppServices

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("users", use: list)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try await services.authenticate(request).user
        let search = request.uri.queryParameters["search"].map(String.init)
        let users = try await services.repository.users(excluding: me.id, search: search)
        return try jsonResponse(UsersResponse(users: users.map(services.present)))
    }
}
