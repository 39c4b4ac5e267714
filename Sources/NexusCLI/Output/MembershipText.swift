import NexusCore

/// How membership changes read: queued in the outbox ("add carol@example.com to #12"),
/// and their events in `tail` and `history` ("12/7 [10:02] · Alice added Carol").
enum MembershipText {
    /// A queued membership entry as `queue` lists it; nil for other kinds.
    static func queued(_ e: OutboxEntry) -> String? {
        let c = e.conversationId.map { "#\($0)" } ?? "?"
        switch e.kind {
        case .add: return "add \(e.emails.joined(separator: ", ")) to \(c)"
        case .remove: return "remove \(e.emails.joined(separator: ", ")) from \(c)"
        case .leave: return "leave \(c)"
        case .rename: return "rename \(c) to \"\(e.text)\""
        case .send, .edit, .delete, .react, .unreact, .mute, .unmute: return nil
        }
    }

    /// The event's words with today's names where known, "You" or "you" for the viewer
    /// (as its subject or object), and the server's words (names at the time) otherwise.
    static func sentence(_ m: Message, _ event: MembershipEvent, viewer: Int64, name: (Int64) -> String?) -> String {
        guard let actor = m.senderId == viewer ? "You" : name(m.senderId) else { return m.text }
        var names: [String] = []
        for id in event.userIds ?? [] {
            guard let n = id == viewer ? "you" : name(id) else { return m.text }
            names.append(n)
        }
        return event.sentence(actor: actor, names: names)
    }

    /// The line of a membership event: its reference and time, then the sentence, dim,
    /// with no sender column (nobody said it).
    static func line(_ m: Message, _ event: MembershipEvent, prefix: String, output: Output, viewer: Int64, name: (Int64) -> String?) -> TerminalText {
        output.paint(TerminalText(prefix), .dim) + output.paint(TerminalText("· " + sentence(m, event, viewer: viewer, name: name)), .dim)
    }
}

extension MessagePrinter {
    /// A membership event: its line (or NDJSON record, a message with `membership`), and
    /// the receipts book follows who is a member. False for every other message.
    func show(membership message: Message) -> Bool {
        guard let event = message.membership else { return false }
        book.apply(membership: message)
        let output = context.output
        if output.json {
            output.record(MessageLine(message: message, sender: people[message.senderId]))
        } else {
            let prefix = "\(message.reference) [\(LocalTime.short(message.sentAt))] "
            output.line(MembershipText.line(message, event, prefix: prefix, output: output, viewer: me.id) { [people] id in
                people[id]?.shownName
            })
        }
        return true
    }
}
