import NexusWire
import SQLiteNIO

struct SQLiteTokenStore: TokenStore {
    let db: SQLiteDatabase

    private static func insert(_ t: NewAccessToken, on db: SQLiteConnection) async throws -> Bool {
        let rows = try await db.query(
            """
            INSERT INTO access_tokens (token_hash, user_id, name, scope, conversations, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, name) DO NOTHING RETURNING token_hash
            """,
            [
                .text(t.tokenHash), .integer(Int(t.userId)), .text(t.name), .text(t.scope.rawValue),
                .text(TokenRows.conversationsText(t.conversations)), .integer(Int(t.createdAt.milliseconds)),
                t.expiresAt.map { .integer(Int($0.milliseconds)) } ?? .null,
            ])
        return !rows.isEmpty
    }

    func createToken(_ token: NewAccessToken) async throws -> Bool {
        try await db.writer.perform { db in try await Self.insert(token, on: db) }
    }

    func token(hash: String) async throws -> StoredSession? {
        try await db.read(
            """
            SELECT u.id, u.email, u.display_name, u.bot, \(TokenRows.columns)
            FROM access_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?
            """, [.text(hash)]
        ).first.map(TokenRows.session)
    }

    func tokens(userId: Int64) async throws -> [AccessToken] {
        try await db.read("SELECT \(TokenRows.columns) FROM access_tokens t WHERE t.user_id = ? ORDER BY t.name", [.integer(Int(userId))])
            .map(TokenRows.accessToken)
    }

    func revokeToken(userId: Int64, name: String) async throws -> String? {
        try await db.writer.perform { db in
            try await db.query(
                "DELETE FROM access_tokens WHERE user_id = ? AND name = ? RETURNING token_hash", [.integer(Int(userId)), .text(name)])
        }.first?.column("token_hash")?.string
    }

    func recordUse(hash: String, at: Timestamp) async throws {
        _ = try await db.writer.perform { db in
            try await db.query(
                "UPDATE access_tokens SET last_used_at = ? WHERE token_hash = ?", [.integer(Int(at.milliseconds)), .text(hash)])
        }
    }

    func createBot(ownerId: Int64, email: String, displayName: String, token: NewAccessToken) async throws -> User? {
        try await db.writer.perform(multiStatement: true) { db in
            let rows = try await db.query(
                """
                INSERT INTO users (email, display_name, password_hash, created_at, bot, owner_id) VALUES (?, ?, '', ?, 1, ?)
                ON CONFLICT (email) DO NOTHING RETURNING id, email, display_name, last_seen_at, bot
                """,
                [.text(email), .text(displayName), .integer(Int(token.createdAt.milliseconds)), .integer(Int(ownerId))])
            guard let user = try rows.first.map(Rows.user) else { return nil }
            var first = token
            first.userId = user.id
            guard try await Self.insert(first, on: db) else { throw StoreError.inconsistent("a new bot's token") }
            return user
        }
    }

    func bots(ownerId: Int64) async throws -> [Bot] {
        try TokenRows.bots(
            try await db.read(
                """
                SELECT u.id, u.email, u.display_name, u.bot, u.last_seen_at, \(TokenRows.columns)
                FROM users u LEFT JOIN access_tokens t ON t.user_id = u.id
                WHERE u.owner_id = ? AND u.bot = 1 ORDER BY u.email, u.id, t.name
                """, [.integer(Int(ownerId))]),
            ownerId: ownerId)
    }

    func deleteBot(ownerId: Int64, email: String) async throws -> [String]? {
        try await db.writer.perform(multiStatement: true) { db in
            let found = try await db.query(
                "SELECT id FROM users WHERE owner_id = ? AND bot = 1 AND email = ?", [.integer(Int(ownerId)), .text(email)])
            guard let id = found.first?.column("id")?.integer else { return nil }
            let hashes = try await db.query("DELETE FROM access_tokens WHERE user_id = ? RETURNING token_hash", [.integer(id)])
                .compactMap { $0.column("token_hash")?.string }
            _ = try await db.query(
                "UPDATE users SET owner_id = NULL, email = 'deleted.' || id || '.' || email WHERE id = ?", [.integer(id)])
            return hashes
        }
    }
}
