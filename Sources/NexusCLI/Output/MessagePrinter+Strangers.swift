import NexusCore

extension MessagePrinter {
    /// Learns the people a batch names before any conversation it carried did: a hook's
    /// bot joins without one, and was shown as "user 5" for as long as the tail ran. Each
    /// is looked for in the cache, then with its conversation's members from the server,
    /// once: one still unknown after that stays "user N" rather than costing a request a line.
    func learnStrangers(in batch: SyncResponse) {
        var ids: [(user: Int64, conversation: Int64)] = (batch.typing ?? []).map { ($0.userId, $0.conversationId) }
        for e in batch.events {
            if let m = e.message {
                ids.append((m.senderId, e.conversationId))
                ids += (m.membership?.userIds ?? []).map { ($0, e.conversationId) }
            }
            if let c = e.change { ids.append((c.userId, e.conversationId)) }
            if let r = e.receipt { ids.append((r.userId, e.conversationId)) }
        }
        let strangers = ids.filter { people[$0.user] == nil && lookedUp.insert($0.user).inserted }
        guard !strangers.isEmpty else { return }
        let cached = ConversationCache(profile: context.profile).people()
        var conversations: [Int64] = []
        for s in strangers {
            if let known = cached[s.user] { people[s.user] = known } else if !conversations.contains(s.conversation) { conversations.append(s.conversation) }
        }
        for id in conversations {
            guard let fetched = try? context.read({ r throws(ReadError) in try r.members(of: id) }) else { continue }
            learn(fetched.value)
        }
    }
}
