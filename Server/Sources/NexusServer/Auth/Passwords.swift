import HummingbirdBcrypt
import NIOPosix

/// bcrypt, always run on the blocking thread pool: a hash takes tens of milliseconds by
/// design, and on an event loop (where Swift concurrency runs in nexusd) it would stall
/// every connection of that loop.
struct Passwords: Sendable {
    let cost: UInt8
    /// A hash of a random secret at the same cost, checked when the email is unknown, so
    /// the answer takes as long as for a known email and does not tell which exist. Made
    /// in the background, so start-up does not wait for it.
    let decoy: Task<String, Never>

    init(cost: UInt8) {
        self.cost = cost
        self.decoy = Task {
            (try? await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(Tokens.generate(), cost: cost) }) ?? ""
        }
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
        let target: String
        if let hash { target = hash } else { target = await decoy.value }
        let matches = try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: target) }
        return matches && hash != nil && Self.problem(with: password) == nil
    }
}
