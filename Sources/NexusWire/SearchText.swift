@_spi(_Unicode) import Swift

/// How search sees text, the same everywhere it is matched: runs of letters, digits and
/// marks are tokens (as SQLite's unicode61 tokenizer and PostgreSQL's parser cut them),
/// folded to lower case without diacritics, so "Café" and "cafe" are one token.
public enum SearchText {
    public struct Token: Equatable {
        /// As written, for the server's indexes, which fold it their own way.
        public var text: String
        public var folded: String
        /// Where it is in the text, in Unicode scalars.
        public var start: Int
        public var end: Int
    }

    public static func tokens(_ text: String) -> [Token] {
        var out: [Token] = []
        var current = String.UnicodeScalarView()
        var start = 0
        var index = 0
        func finish() {
            if !current.isEmpty { out.append(Token(text: String(current), folded: fold(String(current)), start: start, end: index)) }
            current = String.UnicodeScalarView()
        }
        for s in text.unicodeScalars {
            if isTokenScalar(s) {
                if current.isEmpty { start = index }
                current.append(s)
            } else {
                finish()
            }
            index += 1
        }
        finish()
        return out
    }

    static func isTokenScalar(_ s: Unicode.Scalar) -> Bool {
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }

    /// Lower case, decomposed, without combining marks, and the few letters that have no
    /// decomposition but that the server's indexes fold too (ø, ł, đ, ß, æ, œ).
    public static func fold(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for s in text.lowercased()._nfd {
            switch s.value {
            case 0x300...0x36F: continue
            case 0xF8: out.append("o")
            case 0x142: out.append("l")
            case 0x111: out.append("d")
            case 0xDF: out.append(contentsOf: "ss".unicodeScalars)
            case 0xE6: out.append(contentsOf: "ae".unicodeScalars)
            case 0x153: out.append(contentsOf: "oe".unicodeScalars)
            default: out.append(s)
            }
        }
        return String(out)
    }

    /// Text that word indexes cannot find whole: CJK and Thai (written without spaces, so a
    /// word is inside a long token), emoji and symbols (not tokens at all). Such a term is
    /// matched as a substring of the message.
    public static func needsSubstring(_ text: String) -> Bool {
        text.unicodeScalars.contains { s in
            switch s.value {
            case 0x0E00...0x0EFF, 0x1100...0x11FF, 0x2E80...0x9FFF, 0xA960...0xA97F, 0xAC00...0xD7FF, 0xF900...0xFAFF,
                0xFF66...0xFF9F, 0x20000...0x3FFFF:
                return true
            default:
                return s.value > 0x7F && s.properties.isEmoji && !isTokenScalar(s)
            }
        }
    }

    /// The scalar offsets of every occurrence of `needle` in `text`, exactly as typed.
    public static func occurrences(of needle: String, in text: String) -> [(start: Int, end: Int)] {
        let n = Array(needle.unicodeScalars)
        let h = Array(text.unicodeScalars)
        guard !n.isEmpty, n.count <= h.count else { return [] }
        var out: [(Int, Int)] = []
        var i = 0
        while i + n.count <= h.count {
            if h[i] == n[0] && h[i..<i + n.count].elementsEqual(n) {
                out.append((i, i + n.count))
                i += n.count
            } else {
                i += 1
            }
        }
        return out
    }
}
