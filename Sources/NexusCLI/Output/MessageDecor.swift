import NexusCore

/// What `history` and `tail` show around a message's text: a tombstone's words, "(edited)",
/// the reaction counts, and the first line of the message a reply answers.
enum MessageDecor {
    static let deletedText = "message deleted"

    /// The body as a terminal shows it: the text, or the tombstone's words.
    static func body(_ m: Message, continuation: TerminalText, output: Output) -> TerminalText {
        if m.deletedAt != nil { return output.paint(TerminalText(deletedText), .dim) }
        return TerminalText.body(AttachmentText.body(m), continuation: continuation)
    }

    /// " (edited)  👍 2 ❤️ 1", or nothing.
    static func suffix(_ m: Message, output: Output) -> TerminalText {
        var out: TerminalText = ""
        if m.editedAt != nil && m.deletedAt == nil { out += output.paint(" (edited)", .dim) }
        if let counts = counts(m) { out += "  " + TerminalText(counts) }
        return out
    }

    /// "👍 2 ❤️ 1": each reaction with how many members chose it, in the order first used.
    static func counts(_ m: Message) -> String? {
        guard let reactions = m.reactions, !reactions.isEmpty else { return nil }
        return reactions.map { "\($0.emoji) \($0.userIds.count)" }.joined(separator: " ")
    }

    /// The quote line under a reply: "↪ reply to 12/3 Alice: first line of the original", from the
    /// original when it is at hand (the page, else the cache), else only where it points.
    static func quote(
        _ m: Message, original: Message?, name: (Int64) -> String, output: Output
    ) -> TerminalText? {
        guard let seq = m.replyTo else { return nil }
        return quote(replyingTo: MessageReference(conversationId: m.conversationId, seq: seq), original: original, name: name, output: output)
    }

    /// The same for a reply to `ref` (chat's, still in the outbox, has no Message yet).
    static func quote(replyingTo ref: MessageReference, original: Message?, name: (Int64) -> String, output: Output) -> TerminalText {
        guard let original else { return output.paint("↪ reply to \(ref)", .dim) }
        if original.deletedAt != nil { return output.paint("↪ reply to \(ref) \(deletedText)", .dim) }
        let first = original.text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let short = first.count > 80 ? String(first.prefix(79)) + "…" : first
        return output.paint("↪ reply to \(ref) " + TerminalText(name(original.senderId)) + ": " + TerminalText(short), .dim)
    }

    /// The message a reply answers, from `page` or the profile's cache.
    static func original(of m: Message, in page: [Message], cache: MessageCache) -> Message? {
        guard let seq = m.replyTo else { return nil }
        if let found = page.first(where: { $0.conversationId == m.conversationId && $0.seq == seq }) { return found }
        return (try? cache.messages(m.conversationId, seqs: seq...seq))?.first
    }
}
