import NexusWire
import PostgresNIO

extension PostgresUserStore {
    func setPicture(userId: Int64, _ picture: Attachment?, at: Timestamp) async throws {
        guard let p = picture else {
            _ = try await db.rows("DELETE FROM user_pictures WHERE user_id = \(userId)")
            return
        }
        _ = try await db.rows(
            """
            INSERT INTO user_pictures (user_id, sha256, size, type, name, set_at)
            VALUES (\(userId), \(p.sha256), \(p.size), \(p.type), \(p.name), \(at.milliseconds))
            ON CONFLICT (user_id) DO UPDATE SET sha256 = excluded.sha256, size = excluded.size, type = excluded.type,
                name = excluded.name, set_at = excluded.set_at
            """)
    }

    func pictures(of userIds: [Int64]) async throws -> [Int64: Attachment] {
        guard !userIds.isEmpty else { return [:] }
        var out: [Int64: Attachment] = [:]
        for row in try await db.rows("SELECT user_id, sha256, size, type, name FROM user_pictures WHERE user_id = ANY(\(userIds)::bigint[])") {
            let (id, a) = try pictureAttachment(row)
            out[id] = a
        }
        return out
    }
}
