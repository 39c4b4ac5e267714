import NexusWire

/// What nexusd replicas tell each other about what lives in memory: which feeds moved
/// (so held long-polls wake on every replica) and who is typing. A single SQLite
/// process has no bus; PostgreSQL replicas use LISTEN/NOTIFY (PostgresDatabase+Bus).
enum ClusterNote: Sendable, Equatable {
    /// New events in these conversations' feeds.
    case feed(conversationIds: [Int64])
    case typing(Typing)
    /// These sessions or access tokens (SHA-256 hashes) were logged out, revoked or
    /// deleted: a replica's session cache drops them.
    case revoked(tokenHashes: [String])
    /// These conversations' members changed: a replica's cache of them drops them.
    case members(conversationIds: [Int64])
    /// These users left a conversation or were removed: their polls wake on every replica,
    /// so a poll of the conversation answers the non-member's 404 at once. The feed's note
    /// wakes the members after the change, who no longer include them.
    case wake(users: [Int64])
    /// The bus was (re)connected; notes sent while it was down are lost, so everything
    /// held should look again.
    case reconnected

    /// `<origin> f 1,2,3` or `<origin> t <conversation> <user> <until ms>`: small, and
    /// under PostgreSQL's 8,000-byte payload limit when feeds come in chunks (`feedPayloads`).
    func payload(origin: String) -> String? {
        switch self {
        case .feed(let ids): return "\(origin) f " + ids.map(String.init).joined(separator: ",")
        case .typing(let t): return "\(origin) t \(t.conversationId) \(t.userId) \(t.until.milliseconds)"
        case .revoked(let hashes): return "\(origin) r " + hashes.joined(separator: ",")
        case .members(let ids): return "\(origin) m " + ids.map(String.init).joined(separator: ",")
        case .wake(let users): return "\(origin) w " + users.map(String.init).joined(separator: ",")
        case .reconnected: return nil
        }
    }

    /// 300 ids of up to 20 bytes each (19 digits and a comma) stay well under 8,000 bytes.
    static func feedPayloads(origin: String, conversationIds: [Int64]) -> [String] {
        conversationIds.chunked(by: 300).compactMap { ClusterNote.feed(conversationIds: Array($0)).payload(origin: origin) }
    }

    /// 300 ids a note, as for feeds.
    static func wakePayloads(origin: String, users: [Int64]) -> [String] {
        users.chunked(by: 300).compactMap { ClusterNote.wake(users: Array($0)).payload(origin: origin) }
    }

    /// 100 hashes of 65 bytes (64 hex digits and a comma) stay well under 8,000 bytes.
    static func revokedPayloads(origin: String, tokenHashes: [String]) -> [String] {
        tokenHashes.chunked(by: 100).compactMap { ClusterNote.revoked(tokenHashes: Array($0)).payload(origin: origin) }
    }

    /// The note in `payload`, or nil when it is malformed or came from `origin` itself:
    /// a replica has already told its own waiters.
    init?(payload: String, skipping origin: String) {
        let parts = payload.split(separator: " ")
        guard parts.count >= 2, parts[0] != origin else { return nil }
        // The ids of an f, m or w note; one without any is malformed.
        let ids = parts.count == 3 ? parts[2].split(separator: ",").compactMap { Int64($0) } : []
        switch parts[1] {
        case "f" where !ids.isEmpty:
            self = .feed(conversationIds: ids)
        case "t" where parts.count == 5:
            guard let c = Int64(parts[2]), let u = Int64(parts[3]), let until = Int64(parts[4]) else { return nil }
            self = .typing(Typing(conversationId: c, userId: u, until: Timestamp(milliseconds: until)))
        case "m" where !ids.isEmpty:
            self = .members(conversationIds: ids)
        case "w" where !ids.isEmpty:
            self = .wake(users: ids)
        case "r" where parts.count == 3:
            let hashes = parts[2].split(separator: ",").map(String.init)
            guard !hashes.isEmpty else { return nil }
            self = .revoked(tokenHashes: hashes)
        default:
            return nil
        }
    }
}

protocol ClusterBus: Sendable {
    /// Best effort: a lost note delays a wake-up until the poll's timeout, and loses nothing.
    func publish(_ note: ClusterNote) async
    /// Delivers other replicas' notes until the task is cancelled, reconnecting as needed.
    func listen(_ deliver: @escaping @Sendable (ClusterNote) async -> Void) async
}
