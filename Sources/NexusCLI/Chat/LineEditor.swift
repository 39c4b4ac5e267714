/// The line `chat` writes in: characters (not bytes, so UTF-8 and wide characters move as
/// one), a cursor, and the readline keys people expect.
struct LineEditor: Equatable {
    private(set) var characters: [Character] = []
    /// The cursor, as an index into `characters`.
    private(set) var cursor = 0

    var text: String { String(characters) }
    var isEmpty: Bool { characters.isEmpty }

    /// Applies an editing key; false when the key is not an editing one.
    mutating func apply(_ key: Key) -> Bool {
        switch key {
        case .text(let s):
            // What a message can't hold is dropped: a paste's control characters.
            insert(s.filter { !$0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } })
        case .paste(let s):
            // A pasted block keeps its lines and tabs: it is one message.
            insert(Self.pasted(s))
        case .newline: insert("\n")
        case .backspace:
            guard cursor > 0 else { return true }
            characters.remove(at: cursor - 1)
            cursor -= 1
        case .delete, .control("d"):
            if cursor < characters.count { characters.remove(at: cursor) }
        case .left, .control("b"): cursor = max(0, cursor - 1)
        case .right, .control("f"): cursor = min(characters.count, cursor + 1)
        case .home, .control("a"): cursor = 0
        case .end, .control("e"): cursor = characters.count
        case .control("u"):
            characters.removeFirst(cursor)
            cursor = 0
        case .control("k"): characters.removeLast(characters.count - cursor)
        case .control("w"):
            // The word before the cursor and the spaces after it, as a shell does.
            var start = cursor
            while start > 0, characters[start - 1] == " " { start -= 1 }
            while start > 0, characters[start - 1] != " " { start -= 1 }
            characters.removeSubrange(start..<cursor)
            cursor = start
        default:
            return false
        }
        return true
    }

    /// A paste as the message holds it: CR LF and CR as LF, other control characters gone.
    static func pasted(_ s: String) -> String {
        var out = ""
        for c in s {
            // "\r\n" is one Character in Swift.
            if c == "\r\n" || c == "\r" { out.append("\n"); continue }
            if c == "\n" || c == "\t" { out.append(c); continue }
            if c.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { continue }
            out.append(c)
        }
        return out
    }

    private mutating func insert(_ kept: String) {
        characters.insert(contentsOf: kept, at: cursor)
        cursor += kept.count
    }

    mutating func clear() { self = LineEditor() }

    /// What fits in `width` columns, scrolled so the cursor shows, and the cursor's column.
    func visible(width: Int) -> (text: String, cursorColumn: Int) {
        // A new line inside the message shows as ↵, a tab as a space: the line stays one row.
        let shownCharacters = characters.map { $0 == "\n" ? "↵" : $0 == "\t" ? " " : $0 }
        let widths = shownCharacters.map { displayWidth(String($0)) }
        // From the cursor back, so a long paste costs one pass, not one per character.
        var start = cursor, before = 0
        while start > 0, before + widths[start - 1] < width { start -= 1; before += widths[start] }
        var shown = "", used = 0, end = start
        while end < characters.count, used + widths[end] <= width {
            shown.append(shownCharacters[end])
            used += widths[end]
            end += 1
        }
        return (shown, before)
    }
}
