extension FeedFollower {
    /// Hands the consumer the contacts whose presence moved since the last answer: all of
    /// them the first time, then only those who came or went. Presence has no place in
    /// the feed's position: a restarted follower starts again from everyone's state.
    func takePresence(_ batch: SyncResponse) {
        guard presenceDigest != nil else { return }
        if let digest = batch.presenceDigest { presenceDigest = digest }
        guard let states = batch.presence else { return }
        let known = knownPresence
        knownPresence = Dictionary(states.map { ($0.userId, $0) }, uniquingKeysWith: { $1 })
        guard let known else { return consumer.presence(states, initial: true) }
        let changed = states.filter { known[$0.userId]?.online != $0.online }
        if !changed.isEmpty { consumer.presence(changed, initial: false) }
    }

    /// Hands the consumer the account's mutes when they changed, and keeps them in the
    /// cache for a follower that starts offline.
    func takeMutes(_ batch: SyncResponse) {
        guard mutesDigest != nil else { return }
        if let digest = batch.mutesDigest { mutesDigest = digest }
        guard let mutes = batch.mutes else { return }
        if let cache { try? ConversationCache(profile: cache.profile).saveMutes(mutes) }
        consumer.mutes(mutes)
    }
}
