import NexusWire

/// Each account's mutes, kept on its member rows: a mute ends with the membership, and
/// reading one costs no join. `muted_until` is NULL when not muted, and `MuteRows.forever`
/// for a mute without an end.
protocol MuteStore: Sendable {
    /// Sets the member's mute; false when it was already so (a mute ended by `now` is
    /// none). Nil when `userId` is not a member of the conversation.
    func mute(_ mute: Mute, userId: Int64, now: Timestamp) async throws -> Bool?
    /// Ends the member's mute; false when there was none in force. Nil when not a member.
    func unmute(conversationId: Int64, userId: Int64, now: Timestamp) async throws -> Bool?
    /// The user's mutes in force at `now`, by conversation.
    func mutes(of userId: Int64, now: Timestamp) async throws -> [Mute]
}

/// What both backends share: the columns' migration and their reading.
enum MuteRows {
    static let forever = Int64.max

    /// The index holds the muted rows only: someone in ten thousand conversations, few of
    /// them muted, has their mutes read beside every conversation list without a scan.
    static let sqlite: [String] = [
        "ALTER TABLE members ADD COLUMN muted_until INTEGER",
        "ALTER TABLE members ADD COLUMN mute_except_mentions INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX members_muted ON members(user_id, conversation_id) WHERE muted_until IS NOT NULL",
    ]
    static let postgres: [String] = [
        "ALTER TABLE members ADD COLUMN muted_until BIGINT",
        "ALTER TABLE members ADD COLUMN mute_except_mentions BOOLEAN NOT NULL DEFAULT false",
        "CREATE INDEX members_muted ON members(user_id, conversation_id) WHERE muted_until IS NOT NULL",
    ]

    static func until(_ mute: Mute) -> Int64 { mute.until?.milliseconds ?? forever }

    /// A mute from a row of conversation_id, muted_until and mute_except_mentions.
    static func mute(_ row: some StoreRow) throws -> Mute {
        let until = try row.int("muted_until") ?? forever
        return Mute(
            conversationId: try row.int("conversation_id") ?? 0, until: until == forever ? nil : Timestamp(milliseconds: until),
            exceptMentions: try row.flag("mute_except_mentions") ?? false)
    }

    /// The user's mutes in force at `now` (`muted_until > now`: a mute for ever too), with
    /// the backend's marks for the two binds.
    static func inForceSQL(user: String, now: String) -> String {
        """
        SELECT conversation_id, muted_until, mute_except_mentions FROM members
        WHERE user_id = \(user) AND muted_until > \(now) ORDER BY conversation_id
        """
    }

    /// What a mute request leaves: the same mute again changes nothing, a mute past
    /// `now` is none.
    static func changed(from current: (until: Int64?, exceptMentions: Bool), to mute: Mute, now: Timestamp) -> Bool {
        guard let until = current.until, until > now.milliseconds else { return true }
        return until != Self.until(mute) || current.exceptMentions != mute.exceptMentions
    }
}
