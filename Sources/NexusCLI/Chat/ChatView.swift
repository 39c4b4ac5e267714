import NexusCore

/// The chat screen laid out as rows: header, typing line, the offline banner, messages
/// oldest to newest (mine set apart, indented and named "You", with their state), the
/// footer and the line being written. Pure, so it is tested without a terminal.
struct ChatView {
    /// Rows scrolled up from the newest.
    var scroll = 0
    /// The seq of the message chosen with Tab, marked ▶ (ChatLoop+Select).
    var selected: Int64?
    /// Why the last line was not sent, over the footer until the next key: the line itself
    /// stays in the editor, so nothing written is lost.
    var notice: TerminalText?

    static func banner(_ server: String, output: Output) -> TerminalText {
        output.paint(TerminalText("offline — messages will be sent when nexusd is back (can't reach \(server))"), .yellow)
    }

    /// The rows, and the editor's row and column for the cursor.
    func lines(
        _ m: ChatModel, editor: LineEditor, rows height: Int, columns width: Int, output: Output, now: Timestamp = .now()
    ) -> (rows: [TerminalText], cursor: (row: Int, column: Int)) {
        var top: [TerminalText] = [ScreenText.clip(header(m, output: output, now: now), width: width)]
        top.append(ScreenText.clip(typingLine(m, output: output, now: now), width: width))
        if let server = m.offlineServer { top.append(ScreenText.clip(Self.banner(server, output: output), width: width)) }
        let bottom = bottomRows(m, width: width, output: output)
        let room = max(1, height - top.count - bottom.count - 1)
        let body = bodyRows(m, width: width, output: output)
        let end = max(0, body.count - min(scroll, max(0, body.count - room)))
        let shown = Array(body[max(0, end - room)..<end])
        var rows = top + shown
        while rows.count < height - bottom.count - 1 { rows.append("") }
        rows += bottom
        let (text, column) = editor.visible(width: max(1, width - 3))
        rows.append("> " + TerminalText(text))
        return (rows, (rows.count - 1, 2 + column))
    }

    /// Rows above what is shown: how far PgUp can go before an older page is needed.
    func hiddenAbove(_ m: ChatModel, rows height: Int, columns width: Int, output: Output) -> Int {
        let room = max(1, height - (m.offlineServer == nil ? 2 : 3) - bottomRows(m, width: width, output: output).count - 1)
        return max(0, bodyRows(m, width: width, output: output).count - room - scroll)
    }

    /// The notice, wrapped, and the footer: what sits between the messages and the editor.
    private func bottomRows(_ m: ChatModel, width: Int, output: Output) -> [TerminalText] {
        let said = (notice ?? m.notice.map { output.paint(TerminalText($0), .dim) }).map { ScreenText.wrap($0, width: width) } ?? []
        if selected != nil {
            return said + [KeyHelp.footer(["↑↓ choose", "r reply", "e react", "s save files", "Esc back"], width: width, output: output)]
        }
        let retry = m.pending.contains { $0.failure != nil && !$0.localId.isEmpty } ? ["Ctrl-R retry"] : []
        return said + [KeyHelp.footer(["Enter send"] + retry + ["↑ edit", "Esc list", "Tab choose", "PgUp/PgDn scroll", "Ctrl-N next unread"], width: width, output: output)]
    }

    /// The messages' rows, under "No more messages" once the oldest is loaded.
    private func bodyRows(_ m: ChatModel, width: Int, output: Output) -> [TerminalText] {
        let rows = messageRows(m, width: width, output: output)
        return m.hasMore ? rows : [output.paint("No more messages", .dim)] + rows
    }

    /// "Bob · Online", "Bob · Last seen 5m ago", "Team · 3 members".
    private func header(_ m: ChatModel, output: Output, now: Timestamp) -> TerminalText {
        guard let c = m.open else { return output.paint("…", .dim) }
        if c.kind == .direct, var other = c.members.first(where: { $0.id != m.me }) {
            if let live = m.people[other.id] { other.online = live.online; other.lastSeenAt = live.lastSeenAt ?? other.lastSeenAt }
            var shown = c
            shown.members = c.members.map { $0.id == other.id ? other : $0 }
            return ChatHeader.line(shown, me: m.me, offline: m.offlineServer != nil, output: output, now: now) ?? ""
        }
        return output.paint(TerminalText(c.title(viewer: m.me)), .bold) + output.paint(" · \(c.members.count) members", .dim)
    }

    /// "Alice is typing…", "Alice and Bob are typing…", until it runs out.
    private func typingLine(_ m: ChatModel, output: Output, now: Timestamp) -> TerminalText {
        let names = m.typing.active.filter { $0.conversationId == m.openId && $0.until > now }
            .map { m.people[$0.userId]?.shownName ?? "user \($0.userId)" }
        guard !names.isEmpty else { return "" }
        let who = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names.last!
        return output.paint(TerminalText(who) + (names.count == 1 ? " is typing…" : " are typing…"), .dim)
    }

    /// Every message's rows, with a line for each day.
    func messageRows(_ m: ChatModel, width: Int, output: Output) -> [TerminalText] {
        var rows: [TerminalText] = []
        var day: String?
        let group = m.open?.kind == .group
        func dayLine(_ t: Timestamp) {
            let p = LocalTime.parts(t)
            let d = "\(p.tm_year + 1900)-\(p.tm_mon + 1 < 10 ? "0" : "")\(p.tm_mon + 1)-\(p.tm_mday < 10 ? "0" : "")\(p.tm_mday)"
            if d != day { rows.append(output.paint(TerminalText(stringLiteral: "── \(d) ──"), .dim)); day = d }
        }
        for message in m.messages {
            dayLine(message.sentAt)
            if let membership = message.membership {
                rows.append(output.paint(TerminalText(MembershipText.sentence(message, membership, viewer: m.me, name: { m.people[$0]?.shownName })), .dim))
                continue
            }
            let mine = message.senderId == m.me
            let name = mine ? "You" : group ? (m.people[message.senderId]?.shownName ?? "user \(message.senderId)") : nil
            let state = mine ? Self.state(m.book.status(of: message)) : nil
            rows += quote(message.replyTo, in: m, mine: mine, width: width, output: output)
            rows += block(time: LocalTime.short(message.sentAt), name: name, body: MessageDecor.body(message, continuation: "│ ", output: output)
                + MessageDecor.suffix(message, output: output), state: state, mine: mine, chosen: message.seq == selected,
                width: width, output: output)
        }
        for p in m.pending {
            dayLine(p.queuedAt)
            let state = p.failure.map { output.paint("✗ failed: " + TerminalText($0), .red) } ?? output.paint("sending…", .dim)
            rows += quote(p.replyTo, in: m, mine: true, width: width, output: output)
            rows += block(time: LocalTime.short(p.queuedAt), name: "You", body: TerminalText.body(p.text, continuation: "│ "), state: state, mine: true, width: width, output: output)
        }
        return rows
    }

    /// "↪ reply to 12/3 Alice: first line of the original", above a reply.
    private func quote(_ seq: Int64?, in m: ChatModel, mine: Bool, width: Int, output: Output) -> [TerminalText] {
        guard let seq, let id = m.openId else { return [] }
        let line = MessageDecor.quote(
            replyingTo: MessageReference(conversationId: id, seq: seq), original: m.messages.first { $0.seq == seq },
            name: { m.people[$0]?.shownName ?? "user \($0)" }, output: output)
        let pad = TerminalText.control(String(repeating: " ", count: Self.margin(mine: mine, width: width)))
        return [ScreenText.clip(pad + line, width: width)]
    }

    /// How far mine stand in from the left.
    private static func margin(mine: Bool, width: Int) -> Int { mine ? min(16, width / 4) : 0 }

    /// ✓ sent, ✓✓ delivered, ✓✓ Read, ✓✓ Read by 2/3.
    static func state(_ status: (status: String, label: String)?) -> TerminalText {
        switch status?.status {
        case "read": return "✓✓ " + TerminalText(status!.label)
        case "delivered": return "✓✓"
        default: return "✓"
        }
    }

    /// One message: "10:02 Alice: text" wrapped; mine indented, so they stand apart.
    private func block(
        time: String, name: String?, body: TerminalText, state: TerminalText?, mine: Bool, chosen: Bool = false, width: Int,
        output: Output
    ) -> [TerminalText] {
        let margin = Self.margin(mine: mine, width: width)
        var head = (chosen ? output.paint("▶ ", .cyan) : "") + output.paint(TerminalText(stringLiteral: time), .dim) + " "
        if let name { head += output.paint(TerminalText(name), .bold) + ": " }
        var rows: [TerminalText] = []
        for (i, part) in body.rendered.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = (i == 0 ? head : "      ") + TerminalText.control(String(part))
            rows += ScreenText.wrap(text, width: width - margin, indent: 6)
        }
        if let state { rows[rows.count - 1] += "  " + state }
        let pad = TerminalText.control(String(repeating: " ", count: margin))
        return rows.map { ScreenText.clip(pad + $0, width: width) }
    }
}
