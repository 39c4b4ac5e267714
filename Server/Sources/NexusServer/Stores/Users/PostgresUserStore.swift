import NexusWire
import PostgresNIO

struct PostgresUserStore: UserStore {
    let db: PostgresDatabase

    func createUser(email: String, displayName: String, passwordHash: String) async throws -> User? {
        try await db.rows(
            """
            INSERT INTO users (email, display_name, password_hash, created_at)
            VALUES (\(email), \(displayName), \(passwordHash), \(Timestamp.now().milliseconds))
            ON CONFLICT (email) DO NOTHING RETURNING \(unescaped: userColumns)
            """
        ).first.map(Rows.user)
    }

    func credentials(email: String) async throws -> Credentials? {
        // Bots have no password: they log in with their token only.
        try await db.rows(
            "SELECT \(unescaped: userColumns), password_hash FROM users WHERE email = \(email) AND NOT bot")
            .first.map(Credentials.init(row:))
    }

    func user(email: String) async throws -> User? {
        try await db.rows("SELECT id, email, display_name, last_seen_at, bot FROM users WHERE email = \(email)").first.map(Rows.user)
    }

    func users(excluding viewer: Int64, search: String?) async throws -> [User] {
        guard let needle = directoryNeedle(search) else {
            return try await db.rows(
                """
                SELECT \(unescaped: userColumns) FROM users
                WHERE id != \(viewer) AND (NOT bot OR owner_id IS NOT NULL) ORDER BY lower(display_name), id LIMIT 1000
                """
            ).map(Rows.user)
        }
        // No stored name can hold U+0000, and PostgreSQL refuses it in a parameter.
        if needle.contains("\u{0}") { return [] }
        var binds = PostgresBindings()
        binds.append(viewer)
        binds.append(needle)
        let sql = """
            SELECT \(userColumns) FROM users
            WHERE id != $1 AND (NOT bot OR owner_id IS NOT NULL) AND (\(Self.folded("display_name", contains: "$2")) OR \(Self.folded("email", contains: "$2")))
            ORDER BY lower(display_name), id LIMIT 1000
            """
        return try await db.rows(PostgresQuery(unsafeSQL: sql, binds: binds)).map(Rows.user)
    }

    func user(id: Int64) async throws -> User? {
        try await db.rows("SELECT \(unescaped: userColumns) FROM users WHERE id = \(id)").first.map(Rows.user)
    }

    func rename(userId: Int64, displayName: String) async throws -> User? {
        try await db.rows(
            "UPDATE users SET display_name = \(displayName) WHERE id = \(userId) RETURNING \(unescaped: userColumns)"
        ).first.map(Rows.user)
    }

    /// Tells the other replicas in the same statement, as deleteSession does.
    func changePassword(userId: Int64, passwordHash: String, endingSessionsBut kept: String?) async throws -> [String] {
        // A data-modifying WITH runs whether or not the SELECT reads it.
        try await db.rows(
            """
            WITH p AS (UPDATE users SET password_hash = \(passwordHash) WHERE id = \(userId) RETURNING id),
            d AS (DELETE FROM sessions WHERE user_id = \(userId) AND \(kept != nil) AND token_hash <> \(kept ?? "") RETURNING token_hash)
            SELECT d.token_hash, pg_notify(\(PostgresDatabase.channel), \(db.origin + " r ") || d.token_hash)::text AS noted FROM d
            """
        ).map { try $0.text("token_hash") ?? "" }
    }

    /// Whether directoryFold of `column` holds `needle`, in SQL: ICU's root-locale mappings
    /// (not the database's locale, which may fold I to ı), as Swift's; an ASCII value (its
    /// bytes as many as its characters) by its capitals alone: 148 ms -> 30 ms for 100,000
    /// ASCII users, where ILIKE took 56-80 ms.
    static func folded(_ column: String, contains needle: String) -> String {
        """
        CASE WHEN octet_length(\(column)) = char_length(\(column)) THEN strpos(lower(\(column) COLLATE "C"), \(needle))
        ELSE strpos(translate(lower(upper(\(column) COLLATE "und-x-icu")), 'ς', 'σ'), \(needle)) END > 0
        """
    }

    func createSession(userId: Int64, tokenHash: String, createdAt: Timestamp, expiresAt: Timestamp) async throws {
        _ = try await db.rows(
            """
            INSERT INTO sessions (token_hash, user_id, created_at, expires_at)
            VALUES (\(tokenHash), \(userId), \(createdAt.milliseconds), \(expiresAt.milliseconds))
            """)
    }

    func session(tokenHash: String) async throws -> StoredSession? {
        try await db.rows(
            """
            SELECT u.id, u.email, u.display_name, u.last_seen_at, u.bot, s.expires_at, s.created_at
            FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = \(tokenHash)
            """
        ).first.map(StoredSession.init(row:))
    }

    /// Tells the other replicas in the same statement, so their session caches drop the
    /// token as the delete commits (SessionCache).
    func deleteSession(tokenHash: String) async throws {
        _ = try await db.rows(
            """
            WITH d AS (DELETE FROM sessions WHERE token_hash = \(tokenHash) RETURNING token_hash)
            SELECT pg_notify(\(PostgresDatabase.channel), \(db.origin + " r ") || d.token_hash)::text AS noted FROM d
            """)
    }

    func extendSession(tokenHash: String, expiresAt: Timestamp) async throws {
        _ = try await db.rows(
            "UPDATE sessions SET expires_at = GREATEST(expires_at, \(expiresAt.milliseconds)) WHERE token_hash = \(tokenHash)")
    }

    func deleteExpiredSessions(now: Timestamp) async throws -> Int {
        try await db.rows("DELETE FROM sessions WHERE expires_at <= \(now.milliseconds) RETURNING token_hash").count
    }

    func saveLastSeen(_ times: [Int64: Timestamp]) async throws {
        guard !times.isEmpty else { return }
        let ids = Array(times.keys)
        _ = try await db.rows(
            """
            UPDATE users SET last_seen_at = GREATEST(COALESCE(users.last_seen_at, 0), v.at)
            FROM unnest(\(ids)::bigint[], \(ids.map { times[$0]!.milliseconds })::bigint[]) AS v(id, at) WHERE users.id = v.id
            """)
    }
}
