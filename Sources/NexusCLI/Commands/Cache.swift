import NexusCore

/// Keeping the local cache: every message the client sees, and the conversations.
/// A cache that can't be written costs a warning, never the command.
enum Cache {
    static func remember(_ messages: [Message], _ context: CommandContext) {
        guard !messages.isEmpty else { return }
        do {
            try MessageCache(profile: context.profile).insert(messages)
        } catch {
            context.output.warn("could not update the local cache: \(error)")
        }
    }

    /// Full details of conversations looked at (members, receipts).
    static func remember(conversations: [Conversation], _ context: CommandContext) {
        guard !conversations.isEmpty, let me = context.session?.user.id else { return }
        for c in conversations { Conversations.remember(c, context) }
        do {
            try ConversationCache(profile: context.profile).save(conversations, viewer: me)
        } catch {
            context.output.warn("could not update the local cache: \(error)")
        }
    }

    /// The whole list, as the server gave it.
    static func remember(list: ConversationsResponse, _ context: CommandContext) {
        let cache = ConversationCache(profile: context.profile)
        do {
            try cache.saveList(list.conversations)
            try cache.savePeople(list.users)
            if let me = context.session?.user.id {
                let people = Dictionary(list.users.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
                var directs = context.profile.loadDirects()
                for c in list.conversations where c.kind == .direct {
                    if let other = c.memberIds.first(where: { $0 != me }).flatMap({ people[$0] }) { directs[other.email.lowercased()] = c.id }
                }
                try context.profile.saveDirects(directs)
            }
        } catch {
            context.output.warn("could not update the local cache: \(error)")
        }
    }

    /// The newest `count` cached messages of one conversation, or of all of them.
    static func newest(_ count: Int, conversationId: Int64?, _ context: CommandContext) throws(CLIError) -> [Message] {
        let cache = MessageCache(profile: context.profile)
        do {
            if let conversationId { return try cache.page(conversationId, before: nil, limit: count).messages }
            var all: [Message] = []
            for id in cache.conversations() { all += try cache.page(id, before: nil, limit: count).messages }
            return Array(all.sorted { ($0.sentAt, $0.id) < ($1.sentAt, $1.id) }.suffix(count))
        } catch {
            throw CLIError(error)
        }
    }

    /// Says that an answer comes from the cache because the server could not be reached.
    static func sayOffline(_ error: APIError, _ context: CommandContext) {
        context.output.warn("offline (\(error)); showing cached messages")
    }
}
