import NexusCore

/// Which of `chat`'s screens has the keys.
enum ChatScreen: Equatable {
    case list, chat, picker
}

/// Every key of `chat`, by screen, in one place: `?` lists them all, and each screen's
/// footer names the few that matter, as many as its width holds.
enum KeyHelp {
    struct Entry {
        let keys: String
        let does: String
    }

    static func sections(_ screen: ChatScreen) -> [(title: String, entries: [Entry])] {
        let everywhere: (String, [Entry]) = ("Everywhere", [
            Entry(keys: "Ctrl-C", does: "quit"),
            Entry(keys: "Ctrl-Z", does: "suspend; `fg` brings it back"),
            Entry(keys: "Ctrl-L", does: "draw the screen again"),
        ])
        switch screen {
        case .list:
            return [("Conversation list", [
                Entry(keys: "↑/↓, k/j", does: "choose a conversation"),
                Entry(keys: "Enter", does: "open it"),
                Entry(keys: "n", does: "the next conversation with unread messages"),
                Entry(keys: "/", does: "filter by name; Esc clears the filter"),
                Entry(keys: "c, +", does: "a new conversation: choose people among the server's users"),
                Entry(keys: "?", does: "these keys"),
                Entry(keys: "q, Ctrl-D", does: "quit"),
            ]), everywhere]
        case .chat:
            return [("Chat", [
                Entry(keys: "Enter", does: "send the line"),
                Entry(keys: "↑", does: "on an empty line, edit my last message: Enter saves it, Esc leaves it"),
                Entry(keys: "Tab", does: "choose a message (↑/↓, Esc): r replies, e reacts, s saves its files here"),
                Entry(keys: "Ctrl-R", does: "retry my failed messages shown here, as `retry` does"),
                Entry(keys: "PgUp, PgDn, wheel", does: "scroll; at the top, older messages load"),
                Entry(keys: "Ctrl-N", does: "the next conversation with unread messages"),
                Entry(keys: "Esc", does: "back to the list"),
                Entry(keys: "?", does: "these keys, on an empty line"),
                Entry(keys: "Ctrl-D", does: "quit, on an empty line"),
            ]), ("Editing the line", [
                Entry(keys: "←/→, Ctrl-B/Ctrl-F", does: "move by a character"),
                Entry(keys: "Home/End, Ctrl-A/Ctrl-E", does: "to the start, to the end"),
                Entry(keys: "Backspace, Delete", does: "delete a character"),
                Entry(keys: "Ctrl-W", does: "delete the word before the cursor"),
                Entry(keys: "Ctrl-U, Ctrl-K", does: "delete what is before, after the cursor"),
                Entry(keys: "Alt-Enter", does: "a new line inside the message; a paste keeps its lines"),
                Entry(keys: "Ctrl-P, then ↓", does: "what I sent before, and back"),
            ]), everywhere]
        case .picker:
            return [("New conversation", [
                Entry(keys: "type", does: "search the server's users by name or email, as `users --search`"),
                Entry(keys: "↑/↓", does: "choose a person"),
                Entry(keys: "Space", does: "mark or unmark them"),
                Entry(keys: "Enter", does: "one person (the marked one, else the chosen): the direct conversation"),
                Entry(keys: "", does: "several marked: a group, after asking for its name"),
                Entry(keys: "Esc", does: "back to the list (from the name, back to the people)"),
                Entry(keys: "?", does: "these keys"),
            ]), everywhere]
        }
    }

    /// The keys screen: what `?` shows until the next key.
    static func lines(_ screen: ChatScreen, rows height: Int, columns width: Int, output: Output) -> [TerminalText] {
        let sections = sections(screen)
        let column = sections.flatMap(\.entries).map { displayWidth($0.keys) }.max() ?? 0
        var out: [TerminalText] = [output.paint("Keys", .bold)]
        for (title, entries) in sections {
            out.append("")
            out.append(output.paint(TerminalText(title), .bold))
            for e in entries {
                out.append(ScreenText.clip("  " + ScreenText.pad(TerminalText(e.keys), width: column) + "  " + TerminalText(e.does), width: width))
            }
        }
        // The way back stays on screen, however short it is.
        out = Array(out.prefix(max(0, height - 1)))
        while out.count < height - 1 { out.append("") }
        out.append(output.paint("Any key goes back", .dim))
        return out
    }

    /// `items` joined, dropped from the end until they fit `width`; "? keys" always last,
    /// since it leads to the rest.
    static func footer(_ items: [String], width: Int, output: Output) -> TerminalText {
        var kept = items
        func joined() -> String { (kept + ["? keys"]).joined(separator: " · ") }
        while !kept.isEmpty, displayWidth(joined()) > width { kept.removeLast() }
        return output.paint(ScreenText.clip(TerminalText(joined()), width: width), .dim)
    }
}
