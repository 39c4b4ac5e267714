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

    /// Keeps a batch's conversations and messages.
    func keep(_ batch: SyncResponse) -> [CacheProblem] {
        var problems: [CacheProblem] = []
        let conversations = batch.events.compactMap(\.conversation)
        do {
            try Reading.remember(conversations: conversations, profile: profile, me: me)
        } catch {
            problems.append(.write(error))
        }
        let messages = batch.events.compactMap { $0.type == .message && $0.change == nil ? $0.message : nil }
        let changed = batch.events.compactMap { $0.type == .message && $0.change != nil ? $0.message : nil }
        do {
            if !messages.isEmpty { try MessageCache(profile: profile).insert(messages) }
            // A change carries the message as it is now; a tombstone drops the cached text.
            if !changed.isEmpty {
                try MessageCache(profile: profile).upsert(changed)
                try ConversationCache(profile: profile).update(lastMessages: changed)
            }
        } catch {
            problems.append(.write(error))
        }
        return problems
    }

    func newest(_ count: Int, conversationId: Int64?) -> Result<[Message], CacheProblem> {
        do {
            return .success(try MessageCache(profile: profile).newest(count, conversationId: conversationId))
        } catch {
            return .failure(.read(error))
        }
    }
}
