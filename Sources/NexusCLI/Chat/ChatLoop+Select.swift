import NexusCore

/// Tab picks a message on screen (↑/↓ move, Esc leaves); then r replies to it and e reacts
/// to it, both written in the line and sent through the outbox like `send --reply-to` and
/// `react`, and s saves its files (ChatWorker+Files). Ctrl-P brings back what I sent before, ↓ goes forward again.
extension ChatLoop {
    /// What Enter does with the line, besides sending it.
    enum LineAction: Equatable {
        case reply(Int64)
        case react(Int64)
    }

    /// The messages a selection moves over: people's, not membership lines.
    private func selectable() -> [Message] {
        model.locked { m in m.messages.filter { $0.membership == nil && $0.deletedAt == nil } }
    }

    func selectKey(_ key: Key) {
        let messages = selectable()
        guard let seq = chat.selected, let index = messages.firstIndex(where: { $0.seq == seq }) else { chat.selected = nil; return }
        switch key {
        case .up, .text("k"): chat.selected = messages[max(0, index - 1)].seq
        case .down, .text("j"): chat.selected = messages[min(messages.count - 1, index + 1)].seq
        case .text("r"): begin(.reply(seq), messages[index])
        case .text("e"), .text("+"): begin(.react(seq), messages[index])
        case .text("s"):
            chat.selected = nil
            worker.save(messages[index])
        case .escape, .tab: chat.selected = nil
        case .text("?"): showingKeys = true
        default: break
        }
    }

    func startSelecting() {
        guard let newest = selectable().last else {
            chat.notice = output.paint("No message on screen to choose.", .dim)
            return
        }
        chat.selected = newest.seq
        chat.scroll = 0
    }

    private func begin(_ action: LineAction, _ message: Message) {
        chat.selected = nil
        lineAction = action
        let who = model.locked { m in message.senderId == m.me ? "yourself" : m.people[message.senderId]?.shownName ?? "user \(message.senderId)" }
        let first = String(message.text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "").prefix(40)
        switch action {
        case .reply: chat.notice = output.paint("Replying to " + TerminalText(who) + ": " + TerminalText(String(first)) + " — Enter sends, Esc cancels", .dim)
        case .react: chat.notice = output.paint("React to " + TerminalText(who) + ": " + TerminalText(String(first)) + " — an emoji or a short word, Enter reacts", .dim)
        }
    }

    /// Enter with a reaction on the line: queued like `react`.
    func react(to seq: Int64) {
        let emoji = editor.text.trimmingSpaces()
        guard !emoji.isEmpty, let id = model.locked({ $0.openId }) else { return }
        if let problem = Limits.problem(withReaction: emoji) {
            chat.notice = output.paint(TerminalText("Not reacted: \(problem)"), .yellow)
            return
        }
        let entry: OutboxEntry
        do {
            entry = try worker.sending.outbox.enqueue(change: .react, of: MessageReference(conversationId: id, seq: seq), emoji: emoji)
        } catch {
            chat.notice = output.paint(TerminalText("Not reacted: \(error)"), .red)
            return
        }
        editor.clear()
        lineAction = nil
        worker.deliver([entry])
    }

    /// Ctrl-P: the line sent before the one shown (the line being written is kept, and
    /// comes back past the newest).
    func recallOlder() {
        guard !sentLines.isEmpty else { return }
        if recalled == nil { draft = editor.text }
        let next = max(0, (recalled ?? sentLines.count) - 1)
        recalled = next
        editor = LineEditor(sentLines[next])
    }

    /// ↓ while recalling: the next newer line, then the draft.
    func recallNewer() {
        guard let current = recalled else { return }
        if current + 1 < sentLines.count {
            recalled = current + 1
            editor = LineEditor(sentLines[current + 1])
        } else {
            recalled = nil
            editor = LineEditor(draft)
        }
    }
}
