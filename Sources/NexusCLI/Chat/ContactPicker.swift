import NexusCore

/// The new-conversation screen: the server's users for what is typed (as `users --search`
/// finds them), the people marked, then a name when they are several. The screen and the
/// worker share it, each touching it only under the model's lock.
final class ContactPicker: @unchecked Sendable {
    var query = ""
    /// The users the server gave for `answered`, the query they are for.
    var found: [User] = []
    var answered: String?
    var marked: [User] = []
    var selected = 0
    /// Asking for the group's name: several people are marked.
    var naming: LineEditor?
    /// Why the server could not help, until the next try.
    var problem: String?
    /// Waiting for the server to make (or find) the conversation, then the one it gave.
    var opening = false
    var opened: Int64?

    func isMarked(_ user: User) -> Bool { marked.contains { $0.id == user.id } }

    func toggle(_ user: User) {
        if isMarked(user) { marked.removeAll { $0.id == user.id } } else { marked.append(user) }
    }

    /// The rows, and where the cursor goes (in the search or the name).
    func lines(rows height: Int, columns width: Int, output: Output, now: Timestamp = .now()) -> (rows: [TerminalText], cursor: (row: Int, column: Int)?) {
        let with = marked.isEmpty ? "" : " · with " + marked.map(\.shownName).joined(separator: ", ")
        let title = TerminalText(stringLiteral: naming == nil ? "New conversation" : "New group")
        var out: [TerminalText] = [ScreenText.clip(output.paint(title, .bold) + TerminalText(with), width: width)]
        let prompt = naming == nil ? "Search: " : "Group name (Enter for the default): "
        let (text, column) = (naming ?? Self.editor(query)).visible(width: max(1, width - displayWidth(prompt) - 1))
        out.append(ScreenText.clip(output.paint(TerminalText(stringLiteral: prompt), .dim) + TerminalText(text), width: width))
        let cursor = (row: 1, column: min(width - 1, displayWidth(prompt) + column))
        if let problem { out += ScreenText.wrap(output.paint(TerminalText(problem), .yellow), width: width) }
        if opening { out.append(output.paint("Opening…", .dim)) }
        if naming == nil {
            if answered == nil, problem == nil { out.append(output.paint("Searching…", .dim)) }
            if answered != nil, found.isEmpty { out.append(output.paint(query.isEmpty ? "No other users are registered yet." : "No users match.", .dim)) }
            let room = max(0, height - out.count - 1)
            let first = max(0, min(selected - room + 1, found.count - room))
            for (i, u) in found.enumerated().dropFirst(first).prefix(room) {
                out.append(ScreenText.clip(row(u, selected: i == selected, output: output, now: now), width: width))
            }
        }
        out = Array(out.prefix(max(0, height - 1)))
        while out.count < height - 1 { out.append("") }
        out.append(naming == nil
            ? KeyHelp.footer(["type to search", "Space mark", "Enter open", "Esc back"], width: width, output: output)
            : output.paint(ScreenText.clip("Enter create · Esc back to the people", width: width), .dim))
        return (out, cursor)
    }

    /// "> [x] Bob  bob@example.com  ● online"
    private func row(_ u: User, selected: Bool, output: Output, now: Timestamp) -> TerminalText {
        var line: TerminalText = (selected ? "> " : "  ") + (isMarked(u) ? "[x] " : "[ ] ")
        line += selected ? output.paint(TerminalText(u.shownName), .bold) : TerminalText(u.shownName)
        line += "  " + output.paint(TerminalText(u.email), .dim) + "  "
        let seen = u.lastSeenAt.map { SmartTime.lastSeen($0, now: now) } ?? "never seen"
        return line + (u.online == true ? output.paint("● online", .green) : output.paint(TerminalText(seen), .dim))
    }

    private static func editor(_ text: String) -> LineEditor {
        var e = LineEditor()
        _ = e.apply(.text(text))
        return e
    }
}
