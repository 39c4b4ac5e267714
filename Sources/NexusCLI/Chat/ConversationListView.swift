import NexusCore

/// The conversation list screen, laid out as rows of text: pure, so it is tested without
/// a terminal. Order as `convos`: most recent first.
struct ConversationListView {
    var selected = 0
    /// What `/` typed; nil when not filtering.
    var filter: String?

    /// The rows shown, filtered by name.
    func rows(_ m: ChatModel) -> [ConversationSummary] {
        guard let query = filter?.lowercased(), !query.isEmpty else { return m.list }
        return m.list.filter { $0.title(viewer: m.me, users: m.people).lowercased().contains(query) }
    }

    /// The next conversation below `current` in the list's order that has unread messages,
    /// round to the top; nil when no other one has any.
    static func nextUnread(in list: [ConversationSummary], after current: Int64?) -> Int64? {
        let start = current.flatMap { id in list.firstIndex { $0.id == id } }.map { $0 + 1 } ?? 0
        let order = list.indices.map { (start + $0) % max(1, list.count) }
        return order.map { list[$0] }.first { $0.unreadCount > 0 && $0.id != current }?.id
    }

    func lines(_ m: ChatModel, rows height: Int, columns width: Int, output: Output, now: Timestamp = .now()) -> [TerminalText] {
        var out: [TerminalText] = []
        var title: TerminalText = output.paint("Conversations", .bold)
        if let filter { title += "  /" + TerminalText(filter) }
        out.append(title)
        if let server = m.offlineServer { out.append(ChatView.banner(server, output: output)) }
        let shown = rows(m)
        let room = max(0, height - out.count - 1)
        if shown.isEmpty {
            out.append(output.paint(m.list.isEmpty ? "No conversations yet. Press c to start one." : "No conversations match.", .dim))
        }
        // The selection stays on screen.
        let first = max(0, min(selected - room + 1, shown.count - room))
        for (i, c) in shown.enumerated().dropFirst(first).prefix(room) {
            out.append(ScreenText.clip(row(c, m, selected: i == selected, output: output, now: now), width: width))
        }
        while out.count < height - 1 { out.append("") }
        out.append(filter == nil
            ? KeyHelp.footer(["↑↓ move", "Enter open", "c new", "n next unread", "/ filter", "q quit"], width: width, output: output)
            : output.paint(ScreenText.clip("type to filter · Enter open · Esc clear", width: width), .dim))
        return out
    }

    /// "> ● Bob (2)  Just now  Bob: who's in for ramen?"
    private func row(_ c: ConversationSummary, _ m: ChatModel, selected: Bool, output: Output, now: Timestamp) -> TerminalText {
        let other = c.kind == .direct ? c.memberIds.first { $0 != m.me }.flatMap { m.people[$0] } : nil
        let dot: TerminalText = other?.online == true && m.offlineServer == nil ? output.paint("●", .green) : " "
        var line: TerminalText = (selected ? "> " : "  ") + dot + " "
        let name = TerminalText(c.title(viewer: m.me, users: m.people))
        line += selected ? output.paint(name, .bold) : name
        if m.mutes[c.id]?.holds(at: now) == true { line += output.paint(" 🔕", .dim) }
        if c.unreadCount > 0 { line += " " + output.paint(TerminalText(stringLiteral: "(\(c.unreadCount))"), .bold) }
        line += "  " + output.paint(TerminalText(stringLiteral: SmartTime.short(c.updatedAt, now: now)), .dim)
        if let last = c.lastMessage {
            let sender = last.senderId == m.me ? "You" : c.kind == .group ? m.people[last.senderId]?.shownName : nil
            line += "  " + (sender.map { TerminalText($0) + ": " } ?? "")
            line += last.deletedAt != nil || last.text.isEmpty
                ? output.paint(TerminalText(MessageDecor.deletedText), .dim) : preview(AttachmentText.body(last), limit: ConvosCommand.previewLimit)
        }
        return line
    }
}
