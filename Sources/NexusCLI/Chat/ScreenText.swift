/// Cutting already-escaped text (a `TerminalText`'s rendering) into screen rows by
/// display width. The only ESC left in such text is our own colour, `ESC [ … m`, which
/// takes no columns and is never split.
enum ScreenText {
    /// `text` broken into rows of at most `width` columns; each row after the first
    /// starts with `indent` spaces.
    static func wrap(_ text: TerminalText, width: Int, indent: Int = 0) -> [TerminalText] {
        guard width > indent + 1 else { return [clip(text, width: max(1, width))] }
        var rows: [String] = []
        var row = "", used = 0
        var inColour = false
        for c in text.rendered {
            if c == "\u{1B}" { inColour = true; row.append(c); continue }
            if inColour { row.append(c); if c == "m" { inColour = false }; continue }
            let w = displayWidth(String(c))
            if used + w > width {
                rows.append(row)
                row = String(repeating: " ", count: indent)
                used = indent
            }
            row.append(c)
            used += w
        }
        rows.append(row)
        return rows.map { TerminalText.control($0) }
    }

    /// `text` cut to `width` columns (colours kept, and ended when cut).
    static func clip(_ text: TerminalText, width: Int) -> TerminalText {
        var row = "", used = 0, inColour = false, cut = false
        for c in text.rendered {
            if c == "\u{1B}" { inColour = true; row.append(c); continue }
            if inColour { row.append(c); if c == "m" { inColour = false }; continue }
            let w = displayWidth(String(c))
            if used + w > width { cut = true; break }
            row.append(c)
            used += w
        }
        return .control(cut && row.contains("\u{1B}") ? row + "\u{1B}[0m" : row)
    }

    /// `text` padded with spaces to `width` columns (cut when wider).
    static func pad(_ text: TerminalText, width: Int) -> TerminalText {
        let clipped = clip(text, width: width)
        return clipped + .control(String(repeating: " ", count: max(0, width - displayWidth(clipped.rendered))))
    }
}
