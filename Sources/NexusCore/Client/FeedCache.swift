/// The local cache's side of following the feed: what arrives is kept, so offline reads
/// show it, and at an offline start the newest cached messages stand in for the server's.
/// A cache that can't be read or written costs a notice, never the follow.
public struct FeedCache: Sendable {
    public let profile: Profile
    public let me: Int64?

    public init(profile: Profile, me: Int64?) {
        self.profile = profile
        self.me = me
    }

    /// Keeps a batch's conversations and messages, and applies its changes to the messages
    /// cached. Returns the batch with each change's `message` as it is after the change,
    /// where the cache holds it.
    func keep(_ batch: SyncResponse) -> (batch: SyncResponse, problems: [CacheProblem]) {
        var problems: [CacheProblem] = []
        var batch = batch
        let conversations = batch.events.compactMap(\.conversation)
        do {
            try Reading.remember(conversations: conversations, profile: profile, me: me)
        } catch {
            problems.append(.write(error))
        }
        let messages = batch.events.compactMap { $0.type == .message && $0.change == nil ? $0.message : nil }
        let changes = batch.events.indices.compactMap { i in batch.events[i].change.map { (i, batch.events[i].conversationId, $0) } }
        do {
            if !messages.isEmpty { try MessageCache(profile: profile).insert(messages) }
            if !changes.isEmpty {
                let changed = try MessageCache(profile: profile).apply(changes.map { ($0.1, $0.2) })
                for (c, m) in zip(changes, changed) { batch.events[c.0].message = m }
                // An edit or a delete of a conversation's last message changes its preview.
                try ConversationCache(profile: profile).update(lastMessages: changed.compactMap { $0 })
            }
        } catch {
            problems.append(.write(error))
        }
        return (batch, problems)
    }

    func newest(_ count: Int, conversationId: Int64?) -> Result<[Message], CacheProblem> {
        do {
            return .success(try MessageCache(profile: profile).newest(count, conversationId: conversationId))
        } catch {
            return .failure(.read(error))
        }
    }
}
