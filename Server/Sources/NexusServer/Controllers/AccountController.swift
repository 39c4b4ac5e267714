import Hummingbird
import NexusWire

/// The caller's own account: its profile and its password. A session only (not an access
/// token), so a leaked token can't take the account over.
struct AccountController {
    let users: any UserStore
    let services: AppServices

    @Sendable func updateProfile(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller(.account).user
        let body = try await request.decodeJSON(ProfileChangeRequest.self, context: context)
        guard let name = try IdentityInput.displayName(body.displayName) else {
            throw APIError.badRequest("Give the new display name in displayName.", code: "invalid_name")
        }
        guard let user = try await users.rename(userId: me.id, displayName: name) else { throw APIError.unauthorized }
        // Cached sessions carry the old name, which the caller's requests would go on using
        // here (other replicas trust theirs for 2 s at most: SessionCache).
        services.sessions?.forget(userId: me.id)
        return try jsonResponse(services.present(try await users.withPictures([user])[0]))
    }

    /// Limited as login is: the old password is a guess like any other.
    @Sendable func changePassword(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller(.account)
        let body = try await request.decodeJSON(ChangePasswordRequest.self, context: context)
        try IdentityInput.rejectNUL(body.oldPassword, field: "old password", code: "invalid_password")
        try IdentityInput.checkPassword(body.newPassword)
        guard try await services.verifyGuess(body.oldPassword, email: caller.user.email, address: context.clientAddress, users: users) != nil else {
            throw APIError(
                status: .forbidden, code: "wrong_password",
                message: "The old password is not this account's; nothing was changed. Type the current one.")
        }
        let hash = try await services.passwords.hash(body.newPassword)
        let kept = body.keepSessions == true ? nil : caller.tokenHash
        _ = try await services.revoke {
            try await users.changePassword(userId: caller.user.id, passwordHash: hash, endingSessionsBut: kept)
        }
        return Response(status: .noContent)
    }
}
