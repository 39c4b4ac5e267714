import HummingbirdBcrypt
import NIOPosix

/// bcrypt, run on the blocking thread pool: a hash takes tens of milliseconds by design,
/// and on an event loop it would stall every other connection.
struct Passwords: Sendable {
    let cost: UInt8
    /// A hash of a random secret at the same cost, checked when the email is unknown, so
    /// the answer takes as long as for a known email and does not tell which exist.
    let decoy: String

    init(cost: UInt8) {
        self.cost = cost
        self.decoy = Bcrypt.hash(Tokens.generate(), cost: cost)
    }

    /// Why bcrypt can't take this password, or nil. bcrypt is C: it would stop at a NUL
    /// byte, so "abc\0anything" would match "abc".
    static func problem(with password: String) -> String? {
        if password.utf8.contains(0) { return "The password must not contain NUL characters." }
        return nil
    }

    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// Checks `password` against `hash`, or against the decoy when there is no account.
    func verify(_ password: String, hash: String?) async throws -> Bool {
        let target = hash ?? decoy
        let matches = try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: target) }
        return matches && hash != nil && Self.problem(with: password) == nil
    }
}
