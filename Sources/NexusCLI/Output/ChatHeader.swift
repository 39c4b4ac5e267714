import NexusCore

/// The first line of `tail` and `history` of a direct conversation on a terminal, as the
/// product's chat screen shows it: "Bob · Online", "Bob · Last seen 2h ago". For people
/// only, like "is typing…": text read by a program (a pipe, a file) keeps one line a message.
enum ChatHeader {
    /// The header for `conversation` seen by `me`; nil for a group. `offline`: the
    /// state is from the cache, so "Online" would be a guess and is not said.
    static func line(_ conversation: Conversation, me: Int64, offline: Bool, output: Output, now: Timestamp = .now()) -> TerminalText? {
        guard conversation.kind == .direct, let other = conversation.members.first(where: { $0.id != me }) else { return nil }
        let state: String
        if other.online == true && !offline {
            state = "Online"
        } else if let seen = other.lastSeenAt {
            state = SmartTime.lastSeen(seen, now: now)
        } else {
            state = "Offline"
        }
        return output.paint(TerminalText(other.shownName), .bold) + output.paint(TerminalText(" · " + state), .dim)
    }

    /// Prints the header of a conversation whose members were read already.
    static func show(_ members: Fetched<Reading.Members>, conversationId: Int64, me: Int64, context: CommandContext) {
        guard !context.output.json, context.terminal.outputIsTerminal, let c = members.value.conversations.first(where: { $0.id == conversationId }),
              let line = line(c, me: me, offline: members.offlineReason != nil, output: context.output)
        else { return }
        context.output.line(line)
    }

    /// Reads the conversation's members (the server's, else the cache's) and prints its header.
    static func show(conversationId: Int64, me: Int64, context: CommandContext) {
        guard !context.output.json, context.terminal.outputIsTerminal else { return }
        guard let members = try? context.read({ r throws(ReadError) in try r.members(of: conversationId) }) else { return }
        show(members, conversationId: conversationId, me: me, context: context)
    }
}
