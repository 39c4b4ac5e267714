import Hummingbird
import NexusWire

/// register, login, logout and who-am-I.
struct AuthController {
    let users: any UserStore
    let services: AppServices

    @Sendable func register(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(RegisterRequest.self, context: context)
        let email = try IdentityInput.email(body.email)
        try IdentityInput.checkPassword(body.password)
        let name = try IdentityInput.displayName(body.displayName) ?? String(email.split(separator: "@")[0])
        let hash = try await services.passwords.hash(body.password)
        guard let user = try await users.createUser(email: email, displayName: name, passwordHash: hash) else {
            throw APIError(status: .conflict, code: "email_taken", message: "An account with this email already exists. Log in instead.")
        }
        return try jsonResponse(try await startSession(for: user), status: .created)
    }

    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(LoginRequest.self, context: context)
        let email = try IdentityInput.email(body.email)
        // A NUL can't be part of any password (bcrypt would stop at it): say so, don't count a guess.
        try IdentityInput.rejectNUL(body.password, field: "password", code: "invalid_password")
        guard let user = try await services.verifyGuess(body.password, email: email, address: context.clientAddress, users: users)?.user else {
            throw APIError(status: .unauthorized, code: "invalid_credentials", message: "Incorrect email or password.")
        }
        return try jsonResponse(try await startSession(for: user))
    }

    @Sendable func logout(_ request: Request, context: AppRequestContext) async throws -> Response {
        let hash = try context.caller.tokenHash
        // Forget before and after the delete: a lookup racing with this logout can then
        // cache the token neither from a read before the delete nor after it.
        services.sessions?.forget(hash: hash)
        _ = try await services.revoke {
            try await users.deleteSession(tokenHash: hash)
            return [hash]
        }
        return Response(status: .noContent)
    }

    /// Read again rather than the session's copy, which has no `createdAt`.
    @Sendable func me(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller.user
        return try jsonResponse(try await users.withPictures([try await users.user(id: me.id) ?? me])[0])
    }

    /// A new token, valid for the configured time from now; every login makes one.
    private func startSession(for user: User) async throws -> AuthResponse {
        let now = services.clock()
        services.presence.touch(user.id, at: now)
        let token = Tokens.generate()
        let expiresAt = Timestamp(milliseconds: now.milliseconds + services.limits.tokenTTLSeconds * 1000)
        try await users.createSession(userId: user.id, tokenHash: Tokens.hash(token), createdAt: now, expiresAt: expiresAt)
        return AuthResponse(token: token, user: user, expiresAt: expiresAt)
    }
}
