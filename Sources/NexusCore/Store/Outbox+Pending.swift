extension Outbox {
    /// This account's messages the server has not acknowledged yet, oldest first: what
    /// `history` and `tail` show after a conversation's messages, as the optimistic UI
    /// shows a message at once, marked as sending. Only sends (a queued edit or reaction
    /// shows on its message once it is sent); the failed ones too, so they are not missed.
    /// `conversationId` nil: those of every known conversation. `to`: the other person's
    /// email in that direct conversation, for messages queued before its id was known.
    /// `profileOwner`: the account of the profile's saved session (see OutboxAuthor.wrote).
    public func pendingSends(in conversationId: Int64?, to: String? = nil, profileOwner: Int64?) throws(StoreError) -> [OutboxEntry] {
        try queue().entries.filter { e in
            guard e.kind == .send, e.status != .sent, e.status != .dropped else { return false }
            if let conversationId {
                guard e.conversationId == conversationId || (e.conversationId == nil && to != nil && e.to == to) else { return false }
            } else if e.conversationId == nil {
                return false
            }
            // A message of another account that shares this profile is not this one's to show.
            guard let me = author else { return true }
            return me.wrote(e.author, profileOwner: profileOwner) == true
        }
    }
}
