import Crypto
import NexusWire
import Synchronization

/// Bearer tokens: 256 random bits, shown to the client once. The database keeps only
/// their SHA-256, so a copy of it lets no one in.
enum Tokens {
    /// Access tokens (`nexusctl token create`, bots) start with this, sessions with
    /// "nx_": a request then looks in one table only.
    static let accessPrefix = "nxt_"

    static func generate(prefix: String = "nx_") -> String {
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
        return prefix + hex(bytes)
    }

    static func hash(_ token: String) -> String {
        hex(Array(SHA256.hash(data: Array(token.utf8))))
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Who a token belongs to, remembered so that a request does not cost a database read.
/// Logout and revocation evict the entry at once. A single SQLite process is the only
/// writer of sessions, so there the cache cannot go stale behind its back.
///
/// Replicas (`ttl` set) also drop what another replica revoked, when its note arrives on
/// the cluster bus (ClusterNote.revoked, sent in the revoking statement, so it is
/// delivered as that commits: milliseconds), forget everything when the bus reconnects
/// (notes sent meanwhile are lost), and read an entry again once it is `ttl` old: a
/// revoked token works on another replica at most `ttl` after the revocation, and
/// usually only until the note arrives. docs/tokens.md states the bound.
///
/// A lookup that read the database before a logout must not put the token back
/// afterwards, so every logout bumps a generation, and `remember` stores only when the
/// generation is the one its lookup started under.
final class SessionCache: Sendable {
    private struct Entry {
        var session: StoredSession
        let at: ContinuousClock.Instant
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())
    private let capacity = 100_000
    /// How long a replica trusts an entry; nil: for ever (one SQLite process).
    let ttl: Duration?

    /// How long replicas trust a cached session (see the type's comment).
    static let replicaTTL: Duration = .seconds(2)
    /// The time an entry's age is measured by: a test moves it instead of sleeping out `ttl`.
    private let clock: @Sendable () -> ContinuousClock.Instant

    init(ttl: Duration? = nil, clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.ttl = ttl
        self.clock = clock
    }

    /// The cached session, or the generation to pass to `remember` after a database read.
    /// An entry keeps its expiry, so the cache never lets a token outlive it; on replicas
    /// an entry past it is read again (another replica may have slid it).
    func lookup(hash: String, now: Timestamp) -> (session: StoredSession?, generation: UInt64) {
        let oldest = ttl.map { clock() - $0 }
        return state.withLock {
            guard let entry = $0.entries[hash] else { return (nil, $0.generation) }
            if let oldest, entry.at < oldest || entry.session.expiresAt.map({ now >= $0 }) == true { return (nil, $0.generation) }
            return (entry.session, $0.generation)
        }
    }

    func remember(_ session: StoredSession, forHash hash: String, generation: UInt64) {
        let at = clock()
        state.withLock {
            guard $0.generation == generation else { return }
            if $0.entries.count >= capacity { $0.entries.removeAll(keepingCapacity: true) }
            $0.entries[hash] = Entry(session: session, at: at)
        }
    }

    /// Replaces an entry still cached (after its expiry moved or a use was recorded); one
    /// evicted meanwhile (a logout) stays out.
    func update(_ session: StoredSession, forHash hash: String) {
        state.withLock {
            $0.entries[hash]?.session = session
        }
    }

    func forget(hash: String) {
        state.withLock {
            $0.generation &+= 1
            $0.entries.removeValue(forKey: hash)
        }
    }

    /// Drops a user's entries, whose copy of the account went stale (a new display name).
    func forget(userId: Int64) {
        state.withLock {
            $0.generation &+= 1
            $0.entries = $0.entries.filter { $0.value.session.user.id != userId }
        }
    }

    /// The cluster bus reconnected: revocations may have been missed.
    func forgetAll() {
        state.withLock {
            $0.generation &+= 1
            $0.entries.removeAll()
        }
    }
}
