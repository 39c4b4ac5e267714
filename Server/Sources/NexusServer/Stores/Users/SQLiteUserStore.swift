import NexusWire
import SQLiteNIO

struct SQLiteUserStore: UserStore {
    let db: SQLiteDatabase

    func createUser(email: String, displayName: String, passwordHash: String) async throws -> User? {
        let now = Int(Timestamp.now().milliseconds)
        let rows = try await db.writer.perform { db in
            try await db.query(
                """
                INSERT INTO users (email, display_name, password_hash, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (email) DO NOTHING RETURNING \(userColumns)
                """, [.text(email), .text(displayName), .text(passwordHash), .integer(now)])
        }
        return try rows.first.map(Rows.user)
    }

    func credentials(email: String) async throws -> Credentials? {
        // Bots have no password: they log in with their token only.
        try await db.read(
            "SELECT \(userColumns), password_hash FROM users WHERE email = ? AND bot = 0", [.text(email)])
            .first.map(Credentials.init(row:))
    }

    func user(email: String) async throws -> User? {
        try await db.read("SELECT id, email, display_name, last_seen_at, bot FROM users WHERE email = ?", [.text(email)]).first.map(Rows.user)
    }

    func users(excluding viewer: Int64, search: String?) async throws -> [User] {
        var sql = "SELECT \(userColumns) FROM users WHERE id != ? AND (bot = 0 OR owner_id IS NOT NULL)"
        var binds: [SQLiteData] = [.integer(Int(viewer))]
        if let needle = directoryNeedle(search) {
            sql += " AND (instr(\(Self.folded("display_name")), ?) > 0 OR instr(\(Self.folded("email")), ?) > 0)"
            binds += [.text(needle), .text(needle)]
        }
        sql += " ORDER BY display_name COLLATE NOCASE, id LIMIT 1000"
        return try await db.read(sql, binds).map(Rows.user)
    }

    func user(id: Int64) async throws -> User? {
        try await db.read("SELECT \(userColumns) FROM users WHERE id = ?", [.integer(Int(id))]).first.map(Rows.user)
    }

    func rename(userId: Int64, displayName: String) async throws -> User? {
        try await db.writer.perform { db in
            try await db.query(
                "UPDATE users SET display_name = ? WHERE id = ? RETURNING \(userColumns)", [.text(displayName), .integer(Int(userId))])
        }.first.map(Rows.user)
    }

    func changePassword(userId: Int64, passwordHash: String, endingSessionsBut kept: String?) async throws -> [String] {
        try await db.writer.perform(multiStatement: true) { db in
            _ = try await db.query("UPDATE users SET password_hash = ? WHERE id = ?", [.text(passwordHash), .integer(Int(userId))])
            guard let kept else { return [] }
            return try await db.query(
                "DELETE FROM sessions WHERE user_id = ? AND token_hash != ? RETURNING token_hash", [.integer(Int(userId)), .text(kept)]
            ).compactMap { $0.column("token_hash")?.string }
        }
    }

    /// directoryFold of `column` in SQL. An ASCII value (as many bytes as characters) takes
    /// SQLite's lower(), which folds ASCII only, the same; the others the Swift function.
    /// With the function on every row a search of 100,000 users (a tenth not ASCII) took
    /// 0.42 s in a debug build, 0.06 s so.
    static func folded(_ column: String) -> String {
        "CASE WHEN length(\(column)) = octet_length(\(column)) THEN lower(\(column)) ELSE nexus_fold(\(column)) END"
    }

    /// `nexus_fold(text)`: directoryFold in SQL, for the directory search; each of
    /// SQLiteDatabase's readers has it.
    static func fold() -> SQLiteCustomFunction {
        SQLiteCustomFunction("nexus_fold", argumentCount: 1, pure: true) { arguments in
            guard case .text(let text) = arguments.first else { return nil }
            return directoryFold(text)
        }
    }

    func createSession(userId: Int64, tokenHash: String, createdAt: Timestamp, expiresAt: Timestamp) async throws {
        _ = try await db.writer.perform { db in
            try await db.query(
                "INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                [.text(tokenHash), .integer(Int(userId)), .integer(Int(createdAt.milliseconds)), .integer(Int(expiresAt.milliseconds))])
        }
    }

    func session(tokenHash: String) async throws -> StoredSession? {
        try await db.read(
            """
            SELECT u.id, u.email, u.display_name, u.bot, s.expires_at, s.created_at FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = ?
            """,
            [.text(tokenHash)]
        ).first.map(StoredSession.init(row:))
    }

    func deleteSession(tokenHash: String) async throws {
        _ = try await db.writer.perform { db in
            try await db.query("DELETE FROM sessions WHERE token_hash = ?", [.text(tokenHash)])
        }
    }

    func extendSession(tokenHash: String, expiresAt: Timestamp) async throws {
        _ = try await db.writer.perform { db in
            try await db.query(
                "UPDATE sessions SET expires_at = MAX(expires_at, ?) WHERE token_hash = ?",
                [.integer(Int(expiresAt.milliseconds)), .text(tokenHash)])
        }
    }

    func deleteExpiredSessions(now: Timestamp) async throws -> Int {
        try await db.writer.perform { db in
            try await db.query("DELETE FROM sessions WHERE expires_at <= ? RETURNING token_hash", [.integer(Int(now.milliseconds))])
        }.count
    }

    func saveLastSeen(_ times: [Int64: Timestamp]) async throws {
        guard !times.isEmpty else { return }
        _ = try await db.writer.perform(multiStatement: true) { db in
            for (user, at) in times {
                _ = try await db.query(
                    "UPDATE users SET last_seen_at = MAX(COALESCE(last_seen_at, 0), ?) WHERE id = ?",
                    [.integer(Int(at.milliseconds)), .integer(Int(user))])
            }
        }
    }
}
