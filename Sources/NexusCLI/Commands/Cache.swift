import NexusCore

/// Keeping the local cache: every message the client sees, and the conversations.
/// A cache that can't be written costs a warning, never the command.
///
/// Only TailCommand.swift calls these now (the other commands call the core, which keeps
/// the cache itself): remove this type once tail calls the core too.
enum Cache {
    static func remember(_ messages: [Message], _ context: CommandContext) {
        guard !messages.isEmpty else { return }
        do {
            try MessageCache(profile: context.profile).insert(messages)
        } catch {
            context.output.warn("\(CacheProblem.write(error))")
        }
    }

    /// Full details of conversations looked at (members, receipts).
    static func remember(conversations: [Conversation], _ context: CommandContext) {
        do {
            try Reading.remember(conversations: conversations, profile: context.profile, me: context.session?.user.id)
        } catch {
            context.output.warn("\(CacheProblem.write(error))")
        }
    }

    /// The whole list, as the server gave it.
    static func remember(list: ConversationsResponse, _ context: CommandContext) {
        do {
            try Reading.remember(list: list, profile: context.profile, me: context.session?.user.id)
        } catch {
            context.output.warn("\(CacheProblem.write(error))")
        }
    }

    /// The newest `count` cached messages of one conversation, or of all of them.
    static func newest(_ count: Int, conversationId: Int64?, _ context: CommandContext) throws(CLIError) -> [Message] {
        do {
            return try MessageCache(profile: context.profile).newest(count, conversationId: conversationId)
        } catch {
            throw CLIError(error)
        }
    }
}
