import NexusWire

/// An access token to store: whose, what it may do, and its hash (never the secret).
struct NewAccessToken: Sendable {
    var userId: Int64
    var name: String
    var tokenHash: String
    var scope: TokenScope
    var conversations: [Int64]
    var createdAt: Timestamp
    var expiresAt: Timestamp?
}

/// Access tokens (`nexusctl token`) and bots (`nexusctl bot`): a bot is a user with an
/// owner and no password, and its tokens are access tokens like a person's.
protocol TokenStore: Sendable {
    /// false when the user already has a token of that name.
    func createToken(_ token: NewAccessToken) async throws -> Bool
    /// The token's user and access, expired or not (the caller tells an expired one apart).
    func token(hash: String) async throws -> StoredSession?
    func tokens(userId: Int64) async throws -> [AccessToken]
    /// The revoked token's hash, for the session cache; nil when there is none of that name.
    func revokeToken(userId: Int64, name: String) async throws -> String?
    /// Records a use (AppServices.authenticate calls it at most once an hour a token).
    func recordUse(hash: String, at: Timestamp) async throws

    /// The new bot, with `token` (its userId is filled in) as its first token; nil when
    /// the email (the owner's bot of that name) is taken.
    func createBot(ownerId: Int64, email: String, displayName: String, token: NewAccessToken) async throws -> User?
    func bots(ownerId: Int64) async throws -> [Bot]
    /// Revokes every token of the owner's bot with this email and frees its name; its
    /// account stays (its messages keep their sender). The revoked hashes; nil for no such bot.
    func deleteBot(ownerId: Int64, email: String) async throws -> [String]?
}

/// What both backends share: the columns their SQL selects and how rows become models.
enum TokenRows {
    static let columns = "t.name, t.scope, t.conversations, t.created_at, t.expires_at, t.last_used_at"

    static func conversations(_ text: String?) -> [Int64] {
        (text ?? "").split(separator: ",").compactMap { Int64($0) }
    }

    static func conversationsText(_ ids: [Int64]) -> String {
        Array(Set(ids)).sorted().map(String.init).joined(separator: ",")
    }

    static func accessToken(_ row: some StoreRow) throws -> AccessToken {
        AccessToken(
            name: try row.text("name") ?? "", scope: TokenScope(rawValue: try row.text("scope") ?? "") ?? .read,
            conversations: conversations(try row.text("conversations")),
            createdAt: try Rows.timestamp(row, "created_at") ?? Timestamp(milliseconds: 0),
            lastUsedAt: try Rows.timestamp(row, "last_used_at"), expiresAt: try Rows.timestamp(row, "expires_at"))
    }

    /// From a row of the user's columns and `columns`.
    static func session(_ row: some StoreRow) throws -> StoredSession {
        let token = try accessToken(row)
        return StoredSession(
            user: try Rows.user(row), expiresAt: token.expiresAt, createdAt: token.createdAt,
            access: Access(scope: token.scope, conversations: token.conversations.isEmpty ? nil : Set(token.conversations)),
            lastUsedAt: token.lastUsedAt)
    }

    /// The name a bot was created with, from its email (TokenNames.botEmail).
    static func botName(email: String, ownerId: Int64) -> String {
        let local = email.split(separator: "@").first.map(String.init) ?? email
        let suffix = ".\(ownerId)"
        return local.hasSuffix(suffix) ? String(local.dropLast(suffix.count)) : local
    }

    /// Bots from rows of the user's columns and `columns` (a LEFT JOIN: a bot without
    /// tokens has NULL ones), ordered by user.
    static func bots(_ rows: [some StoreRow], ownerId: Int64) throws -> [Bot] {
        var bots: [Bot] = []
        for row in rows {
            let user = try Rows.user(row)
            if bots.last?.user.id != user.id {
                bots.append(Bot(name: botName(email: user.email, ownerId: ownerId), user: user, tokens: []))
            }
            if try row.text("name") != nil { bots[bots.count - 1].tokens.append(try accessToken(row)) }
        }
        return bots
    }
}
