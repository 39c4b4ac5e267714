import NexusWire
import PostgresNIO

struct PostgresTokenStore: TokenStore {
    let db: PostgresDatabase

    private static func insert(_ t: NewAccessToken, on c: PostgresConnection, db: PostgresDatabase) async throws -> Bool {
        let conversations = TokenRows.conversationsText(t.conversations)
        let rows = try await c.query(
            """
            INSERT INTO access_tokens (token_hash, user_id, name, scope, conversations, created_at, expires_at)
            VALUES (\(t.tokenHash), \(t.userId), \(t.name), \(t.scope.rawValue), \(conversations), \(t.createdAt.milliseconds),
                    \(t.expiresAt?.milliseconds))
            ON CONFLICT (user_id, name) DO NOTHING RETURNING token_hash
            """, logger: db.logger
        ).collect()
        return !rows.isEmpty
    }

    func createToken(_ token: NewAccessToken) async throws -> Bool {
        try await db.transaction { [db] c in try await Self.insert(token, on: c, db: db) }
    }

    func token(hash: String) async throws -> StoredSession? {
        try await db.rows(
            """
            SELECT u.id, u.email, u.display_name, u.last_seen_at, u.bot, \(unescaped: TokenRows.columns)
            FROM access_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = \(hash)
            """
        ).first.map(TokenRows.session)
    }

    func tokens(userId: Int64) async throws -> [AccessToken] {
        try await db.rows("SELECT \(unescaped: TokenRows.columns) FROM access_tokens t WHERE t.user_id = \(userId) ORDER BY t.name")
            .map(TokenRows.accessToken)
    }

    func revokeToken(userId: Int64, name: String) async throws -> String? {
        // The other replicas' session caches drop it as the delete commits (SessionCache).
        try await db.rows(
            """
            WITH d AS (DELETE FROM access_tokens WHERE user_id = \(userId) AND name = \(name) RETURNING token_hash)
            SELECT d.token_hash, pg_notify(\(PostgresDatabase.channel), \(db.origin + " r ") || d.token_hash)::text AS noted FROM d
            """
        ).first?.text("token_hash")
    }

    func recordUse(hash: String, at: Timestamp) async throws {
        _ = try await db.rows("UPDATE access_tokens SET last_used_at = \(at.milliseconds) WHERE token_hash = \(hash)")
    }

    func createBot(ownerId: Int64, email: String, displayName: String, token: NewAccessToken) async throws -> User? {
        try await db.transaction { [db] c in
            let rows = try await c.query(
                """
                INSERT INTO users (email, display_name, password_hash, created_at, bot, owner_id)
                VALUES (\(email), \(displayName), '', \(token.createdAt.milliseconds), true, \(ownerId))
                ON CONFLICT (email) DO NOTHING RETURNING id, email, display_name, last_seen_at, bot
                """, logger: db.logger
            ).collect()
            guard let user = try rows.first.map({ try Rows.user($0.makeRandomAccess()) }) else { return nil }
            var first = token
            first.userId = user.id
            guard try await Self.insert(first, on: c, db: db) else { throw StoreError.inconsistent("a new bot's token") }
            return user
        }
    }

    func bots(ownerId: Int64) async throws -> [Bot] {
        try TokenRows.bots(
            try await db.rows(
                """
                SELECT u.id, u.email, u.display_name, u.bot, u.last_seen_at, \(unescaped: TokenRows.columns)
                FROM users u LEFT JOIN access_tokens t ON t.user_id = u.id
                WHERE u.owner_id = \(ownerId) AND u.bot ORDER BY u.email, u.id, t.name
                """),
            ownerId: ownerId)
    }

    func deleteBot(ownerId: Int64, email: String) async throws -> [String]? {
        try await db.transaction { [db] c in
            let found = try await c.query(
                "SELECT id FROM users WHERE owner_id = \(ownerId) AND bot AND email = \(email) FOR UPDATE", logger: db.logger
            ).collect()
            guard let id = try found.first?.decode(Int64.self) else { return nil }
            let hashes = try await c.query("DELETE FROM access_tokens WHERE user_id = \(id) RETURNING token_hash", logger: db.logger)
                .collect().map { try $0.decode(String.self) }
            _ = try await c.query(
                "UPDATE users SET owner_id = NULL, email = 'deleted.' || id || '.' || email WHERE id = \(id)", logger: db.logger
            ).collect()
            try await db.notifyRevoked(hashes, on: c)
            return hashes
        }
    }
}
