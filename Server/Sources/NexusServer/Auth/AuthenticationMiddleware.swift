import Hummingbird
import NexusCore

/// Who made a request: set by AuthenticationMiddleware before any handler behind it runs.
struct Caller: Sendable {
    var user: User
    var tokenHash: String
    /// A session may do everything; an access token its scope.
    var access: Access = .session
}

/// Every route added behind it needs a valid token: it answers 401 itself, before the
/// handler reads anything, and hands the handler the caller in `context.caller`.
struct AuthenticationMiddleware: RouterMiddleware {
    let services: AppServices

    func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.identity = try await services.authenticate(request)
        return try await next(request, context)
    }
}

extension AppRequestContext {
    /// The caller of a route behind AuthenticationMiddleware.
    var caller: Caller {
        get throws {
            guard let identity else { throw APIError.unauthorized }
            return identity
        }
    }
}
