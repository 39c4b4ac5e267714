import NexusWire

struct Credentials: Sendable {
    var user: User
    var passwordHash: String
}

/// Who a token belongs to, what it may do and when it stops working: a session (from
/// register or login) or an access token (Stores/Tokens).
struct StoredSession: Sendable {
    var user: User
    /// nil: never (an access token made with `--expires never`).
    var expiresAt: Timestamp?
    var createdAt: Timestamp
    var access: Access = .session
    /// An access token's last recorded use (recorded at most once an hour).
    var lastUsedAt: Timestamp?
}

/// Accounts, their sessions (tokens) and their stored last-seen times.
protocol UserStore: Sendable {
    /// nil when the email is taken.
    func createUser(email: String, displayName: String, passwordHash: String) async throws -> User?
    func credentials(email: String) async throws -> Credentials?
    func users(excluding viewer: Int64, search: String?) async throws -> [User]
    func user(email: String) async throws -> User?
    /// The account as its own answers show it: with `createdAt`, its registration.
    func user(id: Int64) async throws -> User?
    /// Sets the display name; answers the account as `user(id:)` does, nil when it is gone.
    func rename(userId: Int64, displayName: String) async throws -> User?
    /// Replaces the password hash and, when `endingSessionsBut` is given, deletes the
    /// account's other sessions in the same write; answers the deleted sessions' hashes.
    /// Access tokens stay: they never knew the password.
    func changePassword(userId: Int64, passwordHash: String, endingSessionsBut kept: String?) async throws -> [String]

    /// `createdAt`: the login, by the services' clock, which `--session-max-age` counts from.
    func createSession(userId: Int64, tokenHash: String, createdAt: Timestamp, expiresAt: Timestamp) async throws
    /// The session of a token, expired or not (the caller tells an expired token apart).
    func session(tokenHash: String) async throws -> StoredSession?
    func deleteSession(tokenHash: String) async throws
    /// Moves a session's expiry (its sliding window; see AppServices.authenticate).
    func extendSession(tokenHash: String, expiresAt: Timestamp) async throws
    /// Deletes the sessions expired at `now`; answers how many.
    func deleteExpiredSessions(now: Timestamp) async throws -> Int

    /// Stores last-seen times kept in memory, so they outlive a restart.
    func saveLastSeen(_ times: [Int64: Timestamp]) async throws

    /// Makes a complete upload of the account its picture, or (nil) takes the picture away.
    /// The upload stays while it is named so (BlobReference); replaced, it is cleaned up as
    /// an unreferenced one.
    func setPicture(userId: Int64, _ picture: Attachment?, at: Timestamp) async throws
    /// The pictures of these accounts, by user id; those without one are absent.
    func pictures(of userIds: [Int64]) async throws -> [Int64: Attachment]
}

extension UserStore {
    /// The users with their pictures, for the directory and the account's own answers.
    func withPictures(_ users: [User]) async throws -> [User] {
        let pictures = try await pictures(of: users.map(\.id))
        guard !pictures.isEmpty else { return users }
        return users.map { u in
            var u = u
            u.picture = pictures[u.id].map { UserPicture(userId: u.id, $0) }
            return u
        }
    }
}

/// A row of user_pictures as an Attachment, on both backends.
func pictureAttachment(_ row: some StoreRow) throws -> (Int64, Attachment) {
    (
        try row.int("user_id") ?? 0,
        Attachment(name: try row.text("name") ?? "", size: try row.int("size") ?? 0, type: try row.text("type") ?? "", sha256: try row.text("sha256") ?? "")
    )
}

/// A user's columns for the directory and the account's own answers (Rows.user).
let userColumns = "id, email, display_name, last_seen_at, bot, created_at AS registered_at"

/// A directory search's needle in the form names and emails are compared in
/// (`directoryFold`), or nil when the search asks for everyone.
func directoryNeedle(_ search: String?) -> String? {
    guard let search, !search.isEmpty else { return nil }
    return directoryFold(search)
}

/// The form a directory search compares in: Unicode full case folding, as upper then lower
/// case (so "émile" finds "Émile" and "strasse" "Straße"), final sigma as σ, of text in NFC
/// (stored names and emails are; UsersController puts the search in it). LIKE folds only
/// ASCII on SQLite and ILIKE follows the database's locale on PostgreSQL, which has no
/// casefold() before version 18; so SQLite folds in Swift (SQLiteUserStore.fold) and
/// PostgreSQL with the same mappings in SQL (PostgresUserStore.folded).
func directoryFold(_ s: String) -> String {
    return String(String.UnicodeScalarView(s.uppercased().lowercased().unicodeScalars.map { $0 == "ς" ? "σ" : $0 }))
}

extension StoredSession {
    /// From a row of the user's columns and the session's expires_at and created_at.
    init(row: some StoreRow) throws {
        self.init(
            user: try Rows.user(row), expiresAt: try Rows.timestamp(row, "expires_at") ?? Timestamp(milliseconds: 0),
            createdAt: try Rows.timestamp(row, "created_at") ?? Timestamp(milliseconds: 0))
    }
}

extension Credentials {
    /// From a row of the user's columns and password_hash.
    init(row: some StoreRow) throws {
        self.init(user: try Rows.user(row), passwordHash: try row.text("password_hash") ?? "")
    }
}
