/// The account a command acts as, recorded on each message it queues: a profile's outbox
/// may be flushed later by another credential (the saved session, or a bot's
/// `$NEXUS_TOKEN`), and a message must go only as the account that wrote it.
/// It holds a user id and email, never a secret: an access token whose user is not known
/// yet (offline) is named by its SHA-256.
public struct OutboxAuthor: Sendable, Equatable, Encodable {
    public var userId: Int64?
    public var email: String?
    /// The SHA-256 (hex) of an access token, when its user is not known.
    var tokenHash: String?

    public init(userId: Int64? = nil, email: String? = nil, tokenHash: String? = nil) {
        self.userId = userId
        self.email = email
        self.tokenHash = tokenHash
    }

    /// A session from login: its user is known.
    public init(user: User) {
        self.init(userId: user.id, email: user.email.isEmpty ? nil : user.email)
    }

    /// An access token given without a login ($NEXUS_TOKEN): its user is asked of the
    /// server only when a delivery needs it, so a token's own messages match it offline.
    public init(token: String) {
        let digest = SHA256Digest()
        digest.update(Array(token.utf8))
        self.init(tokenHash: digest.finalHex())
    }

    init?(_ record: OutboxRecord) {
        guard record.author != nil || record.authorToken != nil else { return nil }
        self.init(userId: record.author, email: record.authorEmail, tokenHash: record.authorToken)
    }

    func stamp(_ record: inout OutboxRecord) {
        guard record.op == .queued, record.author == nil, record.authorToken == nil else { return }
        record.author = userId
        record.authorEmail = email
        record.authorToken = userId == nil ? tokenHash : nil
    }

    /// Whether this account wrote a message queued by `author` (nil: by an older nexusctl,
    /// which counts as `profileOwner`'s, the account of the profile's saved session, or
    /// anyone's when there is none). Nil when that needs this account's user id, unknown.
    public func wrote(_ author: OutboxAuthor?, profileOwner: Int64?) -> Bool? {
        if let hash = author?.tokenHash, hash == tokenHash { return true }
        guard let wanted = author.map({ $0.userId }) ?? profileOwner.map({ Optional($0) }) else {
            // An older record in a profile without a saved session: as before, anyone's.
            return true
        }
        guard let wanted else { return false }
        guard let userId else { return nil }
        return userId == wanted
    }

    /// For `queue`: "alice@example.com", "user 12", or "the access token that queued it".
    public var name: String {
        if let email { return email }
        if let userId { return "user \(userId)" }
        return "the access token that queued it"
    }
}
