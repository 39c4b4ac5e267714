import Synchronization

/// Long polls open per user. Each holds a connection for up to a minute, so one account
/// (or one stolen token) could otherwise tie up every socket the server has.
final class PollLimiter: Sendable {
    private let perUser: Int
    private let open = Mutex<[Int64: Int]>([:])

    init(perUser: Int) { self.perUser = perUser }

    /// Takes a slot for `user`; false when the user already holds all of theirs.
    func acquire(_ user: Int64) -> Bool {
        open.withLock { counts in
            guard counts[user, default: 0] < perUser else { return false }
            counts[user, default: 0] += 1
            return true
        }
    }

    func release(_ user: Int64) {
        open.withLock { counts in
            let left = counts[user, default: 1] - 1
            counts[user] = left > 0 ? left : nil
        }
    }
}
