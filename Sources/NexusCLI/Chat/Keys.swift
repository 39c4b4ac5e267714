/// A key as `chat` reads it from a raw terminal.
enum Key: Equatable {
    case text(String)
    case enter, backspace, delete, escape, tab
    case up, down, left, right, home, end, pageUp, pageDown
    /// Ctrl and a letter ("c" for Ctrl-C).
    case control(Character)
    /// A block the terminal pasted (bracketed paste), as it came: one message, not a line each.
    case paste(String)
    /// Alt-Enter: a new line inside the message.
    case newline
    /// The mouse wheel (SGR mouse reports).
    case wheelUp, wheelDown
}

/// Turns the bytes of a raw terminal into keys: UTF-8 text (a character split across two
/// reads waits for its rest) and the common xterm/VT sequences.
struct KeyDecoder {
    private var pending: [UInt8] = []
    /// Inside a bracketed paste: what came so far, until ESC [ 201 ~.
    private var pasted: [UInt8]?
    private static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

    /// The keys in `bytes` and what is left over from before. A lone ESC at the end of a
    /// read is the Escape key: a terminal sends a sequence in one write.
    mutating func keys(_ bytes: [UInt8]) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var i = 0
        var text: [UInt8] = []
        func flushText() {
            if !text.isEmpty { keys.append(.text(String(decoding: text, as: UTF8.self))); text.removeAll() }
        }
        while i < pending.count {
            if pasted != nil {
                // A paste runs to its end marker, however many reads it takes.
                guard let end = Self.find(Self.pasteEnd, in: pending, from: i) else {
                    let keep = max(i, pending.count - (Self.pasteEnd.count - 1))
                    pasted! += pending[i..<keep]
                    i = keep
                    break
                }
                keys.append(.paste(String(decoding: pasted! + pending[i..<end], as: UTF8.self)))
                pasted = nil
                i = end + Self.pasteEnd.count
                continue
            }
            let b = pending[i]
            if b == 0x1B, i + 1 < pending.count, pending[i + 1] == 0x0D || pending[i + 1] == 0x0A {
                flushText()
                keys.append(.newline)
                i += 2
                continue
            }
            if b == 0x1B {
                flushText()
                guard let (key, length) = Self.sequence(pending, at: i) else { break }
                if key == .paste("") { pasted = [] } else if let key { keys.append(key) }
                i += length
                continue
            }
            if b >= 0x80 {
                let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
                if i + length > pending.count { break }
                text += pending[i..<i + length]
                i += length
                continue
            }
            if b >= 0x20 && b != 0x7F { text.append(b); i += 1; continue }
            flushText()
            switch b {
            case 0x0D, 0x0A: keys.append(.enter)
            case 0x7F, 0x08: keys.append(.backspace)
            case 0x09: keys.append(.tab)
            default: keys.append(.control(Character(Unicode.Scalar(b + 0x60))))
            }
            i += 1
        }
        flushText()
        pending.removeFirst(i)
        return keys
    }

    /// The key an escape sequence at `i` stands for (nil inside: one we don't know, skipped)
    /// and its length; nil when it is cut off by the end of the read.
    private static func sequence(_ b: [UInt8], at i: Int) -> (Key?, Int)? {
        guard i + 1 < b.count else { return (.escape, 1) }
        let introducer = b[i + 1]
        guard introducer == 0x5B || introducer == 0x4F else { return (.escape, 1) }
        var j = i + 2
        while j < b.count, (0x30...0x3F).contains(b[j]) { j += 1 }
        guard j < b.count else { return nil }
        let final = b[j], parameter = String(decoding: b[(i + 2)..<j], as: UTF8.self)
        let key: Key?
        switch (final, parameter) {
        case (0x41, _): key = .up
        case (0x42, _): key = .down
        case (0x43, _): key = .right
        case (0x44, _): key = .left
        case (0x48, _), (0x7E, "1"), (0x7E, "7"): key = .home
        case (0x46, _), (0x7E, "4"), (0x7E, "8"): key = .end
        case (0x7E, "3"): key = .delete
        case (0x7E, "5"): key = .pageUp
        case (0x7E, "6"): key = .pageDown
        // The start of a bracketed paste (its text follows).
        case (0x7E, "200"): key = .paste("")
        // SGR mouse: button 64 and 65 are the wheel; clicks are let through unused.
        case (0x4D, let p) where p.hasPrefix("<64;"): key = .wheelUp
        case (0x4D, let p) where p.hasPrefix("<65;"): key = .wheelDown
        default: key = nil
        }
        return (key, j - i + 1)
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count - start >= needle.count else { return nil }
        for i in start...(bytes.count - needle.count) where bytes[i] == needle[0] && Array(bytes[i..<i + needle.count]) == needle {
            return i
        }
        return nil
    }
}
