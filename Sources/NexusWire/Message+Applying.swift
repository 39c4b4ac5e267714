extension Message {
    /// The message after `change`. Written once for nexusd, which stores what this returns,
    /// and for the clients, which apply the feed's changes to the copies they hold, so that
    /// both agree. A change that alters nothing (the same reaction twice, an edit to the same
    /// text, a second delete) returns the message as it is.
    public func applying(_ change: MessageChange) -> Message {
        var m = self
        switch change.kind {
        case .edit:
            guard deletedAt == nil, let text = change.text, text != m.text else { return self }
            m.text = text
            m.editedAt = change.at
        case .delete:
            // The tombstone: the seq stays, so pages stay gapless; the text, the reactions
            // and the attachments go.
            guard deletedAt == nil else { return self }
            m.text = ""
            m.deletedAt = change.at
            m.reactions = nil
            m.attachments = nil
        case .react, .unreact:
            guard deletedAt == nil, let emoji = change.emoji else { return self }
            let user = change.userId
            var reactions = m.reactions ?? []
            if let i = reactions.firstIndex(where: { $0.emoji == emoji }) {
                if change.kind == .react {
                    guard !reactions[i].userIds.contains(user) else { return self }
                    reactions[i].userIds.append(user)
                } else {
                    guard reactions[i].userIds.contains(user) else { return self }
                    reactions[i].userIds.removeAll { $0 == user }
                    if reactions[i].userIds.isEmpty { reactions.remove(at: i) }
                }
            } else {
                guard change.kind == .react else { return self }
                reactions.append(Reaction(emoji: emoji, userIds: [user]))
            }
            m.reactions = reactions.isEmpty ? nil : reactions
        }
        return m
    }
}
