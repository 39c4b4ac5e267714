import NexusWire

/// Ending what a token holds when it stops working (CredentialWatch).
extension AppServices {
    /// Runs a revoking statement (a logout, a token's revocation, a bot's deletion) that
    /// answers the hashes it revoked (nil: nothing of that name), then shuts them out:
    /// the session cache forgets them and the polls they hold end with 401.
    func revoke(_ statement: () async throws -> [String]?) async throws -> [String]? {
        credentials.beginRevoking()
        let hashes: [String]?
        do {
            hashes = try await statement()
        } catch {
            _ = credentials.marks([], local: true)
            throw error
        }
        await forget(hashes: hashes ?? [], local: true)
        return hashes
    }

    /// Forgets revoked tokens at once, so the cache can't keep them working, and wakes
    /// the polls they hold, which then end (`checkStillValid`). `local`: revoked here
    /// (`revoke`), not told by another replica.
    func forget(hashes: [String], local: Bool) async {
        for hash in hashes { sessions?.forget(hash: hash) }
        let viewers = credentials.marks(hashes, local: local)
        if !viewers.isEmpty { await events.publish(.wake(users: Array(viewers), because: .revocation)) }
    }

    /// Throws the 401 a new request would get once the poll's token no longer works.
    /// Called after each read of a held poll's page and before it answers: what the read
    /// found was committed before this check, so a token that still works here worked
    /// when all of it was committed.
    func checkStillValid(_ credential: PollCredential) async throws {
        let (standing, confirmation) = credentials.standing(of: credential, now: clock())
        switch standing {
        case .valid:
            return
        case .revoked:
            throw APIError.unauthorized
        case .unsure:
            let isAccessToken = credential.isAccessToken
            let stored = isAccessToken
                ? try await stores.tokens.token(hash: credential.hash) : try await stores.users.session(tokenHash: credential.hash)
            guard let stored else { throw APIError.unauthorized }
            if let expiresAt = expiry(of: stored, isAccessToken: isAccessToken), clock() >= expiresAt {
                throw isAccessToken ? APIError.accessTokenExpired : APIError.tokenExpired
            }
            credentials.confirm(credential, confirmation)
        }
    }
}
