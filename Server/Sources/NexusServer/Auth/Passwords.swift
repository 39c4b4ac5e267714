import HummingbirdBcrypt
import NIOPosix

/// bcrypt, run on the blocking thread pool: a hash takes tens of milliseconds by design,
/// and on an event loop it would stall every other connection.
struct Passwords: Sendable {
    var cost: UInt8 = 10

    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}
