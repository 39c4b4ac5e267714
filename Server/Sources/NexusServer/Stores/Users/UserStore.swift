import NexusCore

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
}

/// `s` with LIKE's wildcards and the escape character itself escaped by a backslash, for
/// a pattern written with `ESCAPE '\'`; both backends search the directory this way.
func escapeLikePattern(_ s: String) -> String {
    var out = ""
    for c in s {
        if c == "%" || c == "_" || c == "\\" { out.append("\\") }
        out.append(c)
    }
    return out
}

/// The LIKE pattern for a directory search, or nil when the search asks for everyone.
func directoryPattern(_ search: String?) -> String? {
    guard let search, !search.isEmpty else { return nil }
    return "%" + escapeLikePattern(search) + "%"
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
