import NexusWire
import SQLiteNIO

extension SQLiteUserStore {
    func setPicture(userId: Int64, _ picture: Attachment?, at: Timestamp) async throws {
        guard let p = picture else {
            _ = try await db.writer.perform { db in
                try await db.query("DELETE FROM user_pictures WHERE user_id = ?", [.integer(Int(userId))])
            }
            return
        }
        _ = try await db.writer.perform { db in
            try await db.query(
                """
                INSERT INTO user_pictures (user_id, sha256, size, type, name, set_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_id) DO UPDATE SET sha256 = excluded.sha256, size = excluded.size, type = excluded.type,
                    name = excluded.name, set_at = excluded.set_at
                """,
                [.integer(Int(userId)), .text(p.sha256), .integer(Int(p.size)), .text(p.type), .text(p.name), .integer(Int(at.milliseconds))])
        }
    }

    func pictures(of userIds: [Int64]) async throws -> [Int64: Attachment] {
        guard !userIds.isEmpty else { return [:] }
        var out: [Int64: Attachment] = [:]
        // The directory answers at most 1,000 users, well under SQLite's bound on variables.
        for ids in userIds.chunked(by: 1000) {
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            let rows = try await db.read(
                "SELECT user_id, sha256, size, type, name FROM user_pictures WHERE user_id IN (\(marks))", ids.map { SQLiteData.integer(Int($0)) })
            for row in rows {
                let (id, a) = try pictureAttachment(row)
                out[id] = a
            }
        }
        return out
    }
}
