import NexusCore

/// ↑ on an empty line takes my last message into the line, as Slack does; Enter saves the
/// edit through the outbox, as `edit` does, and Esc leaves the message as it was.
extension ChatLoop {
    /// My newest message on screen that an edit can change, as the line to edit.
    func startEditing() {
        let mine = model.locked { m in m.messages.last { $0.senderId == m.me && $0.deletedAt == nil && $0.membership == nil } }
        guard let mine else {
            chat.notice = output.paint("None of your messages is on screen to edit.", .dim)
            return
        }
        editing = mine.reference
        editor = LineEditor(mine.text)
        chat.notice = output.paint(TerminalText("Editing \(mine.reference): Enter saves, Esc leaves it as it was."), .dim)
    }

    func stopEditing() {
        editing = nil
        editor.clear()
        chat.notice = nil
    }

    /// Queued like `edit`: on disk first, then delivered; the feed brings the change back
    /// to the screen (at once, when the server answers; once it is back, when offline).
    func saveEdit(_ ref: MessageReference) {
        let text = editor.text
        if let problem = Limits.problem(withText: text) {
            chat.notice = output.paint(TerminalText("Not saved: \(problem). `delete` removes a message."), .yellow)
            return
        }
        let unchanged = model.locked { m in m.messages.first { $0.seq == ref.seq }?.text == text }
        guard !unchanged else { return stopEditing() }
        let entry: OutboxEntry
        do {
            entry = try worker.sending.outbox.enqueue(change: .edit, of: ref, text: text)
        } catch {
            chat.notice = output.paint(TerminalText("Not saved: \(error)"), .red)
            return
        }
        stopEditing()
        worker.deliver([entry])
    }
}

extension LineEditor {
    /// A line holding `text` (its lines too, shown ↵), the cursor at its end.
    init(_ text: String) {
        self.init()
        _ = apply(.paste(text))
    }
}
