import HTTPTypes
import Hummingbird
import NexusWire

/// Who made a request: set by AuthenticationMiddleware before any handler behind it runs.
struct Caller: Sendable {
    var user: User
    var tokenHash: String
    /// A session may do everything; an access token its scope.
    var access: Access = .session
    /// A session's expiry after this request slid it; nil for access tokens (they don't slide).
    var sessionExpiresAt: Timestamp? = nil
    /// When the token stops working (AppServices.expiry); nil: never.
    var expiresAt: Timestamp? = nil
}

/// Every route added behind it needs a valid token: it answers 401 itself, before the
/// handler reads anything, and hands the handler the caller in `context.caller`.
struct AuthenticationMiddleware: RouterMiddleware {
    let services: AppServices
    /// The `Nexus-Max-Attachment` value, made once rather than at each answer.
    private let maxAttachment: String

    init(services: AppServices) {
        self.services = services
        maxAttachment = String(services.limits.maxAttachmentBytes)
    }

    func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        let caller = try await services.authenticate(request)
        context.identity = caller
        context.accessNote?.userId = caller.user.id
        var response = try await next(request, context)
        // On every answer, not only when it moved: a header costs nothing, and the client
        // then needs no request of its own to learn that its session was renewed.
        if let expiresAt = caller.sessionExpiresAt { response.headers[Self.sessionExpiresHeader] = expiresAt.iso8601 }
        // So a client can refuse a file too large before it queues it, not after an upload.
        response.headers[Self.maxAttachmentHeader] = maxAttachment
        return response
    }

    static let sessionExpiresHeader = HTTPField.Name("Nexus-Session-Expires")!
    static let maxAttachmentHeader = HTTPField.Name("Nexus-Max-Attachment")!
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
