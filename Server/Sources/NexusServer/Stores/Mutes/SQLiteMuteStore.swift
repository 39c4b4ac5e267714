import NexusWire
import SQLiteNIO

struct SQLiteMuteStore: MuteStore {
    let db: SQLiteDatabase

    func mute(_ mute: Mute, userId: Int64, now: Timestamp) async throws -> Bool? {
        try await db.writer.perform { db in
            let key: [SQLiteData] = [.integer(Int(mute.conversationId)), .integer(Int(userId))]
            guard let row = try await db.query(
                "SELECT muted_until, mute_except_mentions FROM members WHERE conversation_id = ? AND user_id = ?", key
            ).first else { return nil }
            let current = (until: row.int("muted_until"), exceptMentions: row.flag("mute_except_mentions") == true)
            guard MuteRows.changed(from: current, to: mute, now: now) else { return false }
            _ = try await db.query(
                "UPDATE members SET muted_until = ?, mute_except_mentions = ? WHERE conversation_id = ? AND user_id = ?",
                [.integer(Int(MuteRows.until(mute))), .integer(mute.exceptMentions ? 1 : 0)] + key)
            return true
        }
    }

    func unmute(conversationId: Int64, userId: Int64, now: Timestamp) async throws -> Bool? {
        try await db.writer.perform { db in
            let key: [SQLiteData] = [.integer(Int(conversationId)), .integer(Int(userId))]
            guard let row = try await db.query("SELECT muted_until FROM members WHERE conversation_id = ? AND user_id = ?", key).first
            else { return nil }
            guard let until = row.int("muted_until") else { return false }
            _ = try await db.query("UPDATE members SET muted_until = NULL, mute_except_mentions = 0 WHERE conversation_id = ? AND user_id = ?", key)
            return until > now.milliseconds
        }
    }

    func mutes(of userId: Int64, now: Timestamp) async throws -> [Mute] {
        try await db.read(MuteRows.inForceSQL(user: "?", now: "?"), [.integer(Int(userId)), .integer(Int(now.milliseconds))])
            .map(MuteRows.mute)
    }
}
