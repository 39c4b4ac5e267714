import NIOCore
import NexusWire
import SQLiteNIO

extension SQLiteDatabase {
    /// Applies the identity rule to stored rows (see IdentityRepair) in one transaction.
    /// Text is read as bytes: SQLite hands TEXT back cut at a NUL, which would make
    /// "bob@example.test\0" read as bob's own email.
    ///
    /// `users.email` keeps its COLLATE NOCASE: once every stored email and every one asked
    /// for is in the one form (lower-case), NOCASE, which folds only ASCII capitals, compares
    /// exactly as plain equality does on PostgreSQL, and rebuilding the table isn't needed.
    func repairIdentities() async throws -> IdentityRepair {
        try await writer.perform(multiStatement: true) { db in
            func rows(_ sql: String, _ column: String) async throws -> [IdentityRepair.Row] {
                try await db.query(sql).map { row in
                    let bytes = row.column(column)?.blob.map { Array($0.readableBytesView) } ?? []
                    return IdentityRepair.Row(id: Int64(row.column("id")?.integer ?? 0), text: String(decoding: bytes, as: UTF8.self))
                }
            }
            let emails = try await rows("SELECT id, CAST(email AS BLOB) AS t FROM users", "t")
            let names = try await rows("SELECT id, CAST(display_name AS BLOB) AS t FROM users", "t")
            let titles = try await rows("SELECT id, CAST(name AS BLOB) AS t FROM conversations WHERE name IS NOT NULL", "t")
            let repair = IdentityRepair(users: emails, displayNames: names, titles: titles)
            // Disabled first: their old emails then can't stand in the way of a normal form.
            for c in repair.disabled {
                _ = try await db.query("DELETE FROM sessions WHERE user_id = ?", [.integer(Int(c.id))])
                _ = try await db.query("UPDATE users SET email = ? WHERE id = ?", [.text(c.to), .integer(Int(c.id))])
            }
            for c in repair.emails {
                _ = try await db.query("UPDATE users SET email = ? WHERE id = ?", [.text(c.to), .integer(Int(c.id))])
            }
            for c in repair.names {
                _ = try await db.query("UPDATE users SET display_name = ? WHERE id = ?", [.text(c.to), .integer(Int(c.id))])
            }
            for c in repair.titles {
                _ = try await db.query("UPDATE conversations SET name = ? WHERE id = ?", [.text(c.to), .integer(Int(c.id))])
            }
            return repair
        }
    }
}
