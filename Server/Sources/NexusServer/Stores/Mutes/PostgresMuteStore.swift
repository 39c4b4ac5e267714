import NexusWire
import PostgresNIO

/// A mute wakes the account's polls on every replica (`mutes=` answers with the new list),
/// by a note its own transaction sends at commit.
struct PostgresMuteStore: MuteStore {
    let db: PostgresDatabase

    func mute(_ mute: Mute, userId: Int64, now: Timestamp) async throws -> Bool? {
        try await db.transaction { [db] c in
            guard let row = try await c.query(
                """
                SELECT muted_until, mute_except_mentions FROM members
                WHERE conversation_id = \(mute.conversationId) AND user_id = \(userId) FOR UPDATE
                """, logger: db.logger
            ).collect().first else { return nil }
            let (until, exceptMentions) = try row.decode((Int64?, Bool).self)
            guard MuteRows.changed(from: (until, exceptMentions), to: mute, now: now) else { return false }
            try await c.query(
                """
                UPDATE members SET muted_until = \(MuteRows.until(mute)), mute_except_mentions = \(mute.exceptMentions)
                WHERE conversation_id = \(mute.conversationId) AND user_id = \(userId)
                """, logger: db.logger)
            try await db.notifyWake([userId], on: c)
            return true
        }
    }

    func unmute(conversationId: Int64, userId: Int64, now: Timestamp) async throws -> Bool? {
        try await db.transaction { [db] c in
            guard let row = try await c.query(
                "SELECT muted_until FROM members WHERE conversation_id = \(conversationId) AND user_id = \(userId) FOR UPDATE",
                logger: db.logger
            ).collect().first else { return nil }
            guard let until = try row.decode(Int64?.self) else { return false }
            try await c.query(
                "UPDATE members SET muted_until = NULL, mute_except_mentions = false WHERE conversation_id = \(conversationId) AND user_id = \(userId)",
                logger: db.logger)
            try await db.notifyWake([userId], on: c)
            return until > now.milliseconds
        }
    }

    func mutes(of userId: Int64, now: Timestamp) async throws -> [Mute] {
        var binds = PostgresBindings()
        binds.append(userId)
        binds.append(now.milliseconds)
        return try await db.rows(PostgresQuery(unsafeSQL: MuteRows.inForceSQL(user: "$1", now: "$2"), binds: binds)).map(MuteRows.mute)
    }
}
