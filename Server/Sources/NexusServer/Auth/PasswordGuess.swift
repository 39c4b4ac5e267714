import NexusWire

extension AppServices {
    /// A password typed for `email` (a login, or the old one of a change), taken as a guess:
    /// refused before bcrypt while the account or the address is over the login limit, so a
    /// refused guess costs the server nothing, and counted as a failure unless it matches.
    /// Nil for a wrong password or an unknown email; the caller words the refusal.
    func verifyGuess(_ password: String, email: String, address: String?, users: any UserStore) async throws -> Credentials? {
        let now = clock()
        if let wait = logins.admit(account: email, address: address, now: now) {
            throw APIError.tooManyRequests(
                "too_many_logins", "Too many wrong passwords for this account or from this address; try again in \(wait) s.",
                retryAfter: wait)
        }
        let credentials = try await users.credentials(email: email)
        guard try await passwords.verify(password, hash: credentials?.passwordHash), let credentials else { return nil }
        logins.succeeded(account: email, address: address, admittedAt: now)
        return credentials
    }
}
