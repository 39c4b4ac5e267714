/// The rule for the text that names people and conversations: emails, display names and
/// conversation titles. Both sides apply it: nexusd refuses what breaks it (and fixes old
/// rows at start-up), and nexusctl refuses the same input before sending it.
///
/// Two texts that look the same on a terminal must not name two accounts, so:
/// - no character may be invisible or act on the terminal: controls (C0, DEL, C1, so NUL
///   and ESC), format characters (Unicode Cf: U+200B, U+2060, U+00AD, bidi controls ...),
///   default-ignorable code points (U+034F, U+3164, U+FFA0, tags ...), line and paragraph
///   separators, and whitespace other than the plain space;
/// - an email is compared in one form: NFC, lower-case. docs/protocol.md ("Emails and
///   names") states the syntax.
public enum Identity {
    /// The one form stored and compared: surrounding spaces and tabs dropped, lower-case, NFC.
    public static func normalizedEmail(_ raw: String) -> String {
        let lower = raw.trimmingSpaces().lowercased()
        return String(decoding: lower._nfcCodeUnits, as: UTF8.self)
    }

    /// Why `email` (already normalised) can't name an account, or nil when it can.
    public static func problem(withEmail email: String) -> String? {
        func bad(_ why: String) -> String { "'\(visible(email))' is not an email address: \(why)" }
        if email.isEmpty { return "the email is empty" }
        if let (offset, scalar) = forbiddenScalar(in: email, allowSpace: false) {
            return bad("character \(offset + 1) is \(describe(scalar)), which is invisible or a control character")
        }
        if email.utf8.count > 254 { return bad("it is longer than 254 bytes") }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return bad("it needs one '@' between a name and a domain") }
        let (local, domain) = (parts[0], parts[1])
        if local.utf8.count > 64 { return bad("the part before '@' is longer than 64 bytes") }
        if local.first == "." || local.last == "." || local.contains("..") {
            return bad("the part before '@' can't start or end with '.' or hold '..'")
        }
        if let c = local.unicodeScalars.first(where: { !isLocalScalar($0) }) { return bad("'\(c)' is not allowed before '@'") }
        for label in domain.split(separator: ".", omittingEmptySubsequences: false) {
            if label.isEmpty { return bad("the domain has an empty label") }
            if label.utf8.count > 63 { return bad("a domain label is longer than 63 bytes") }
            if label.first == "-" || label.last == "-" { return bad("a domain label can't start or end with '-'") }
            if let c = label.unicodeScalars.first(where: { !isDomainScalar($0) }) { return bad("'\(c)' is not allowed in the domain") }
        }
        return nil
    }

    /// Why `name` (a display name or a conversation title, trimmed) can't be used, or nil.
    /// `what` names it in the message: "display name" or "title".
    public static func problem(withName name: String, what: String = "display name", checkLength: Bool = true) -> String? {
        if let (offset, scalar) = forbiddenScalar(in: name, allowSpace: true) {
            return "the \(what) '\(visible(name))' has \(describe(scalar)) at character \(offset + 1), which is invisible or a control character"
        }
        if checkLength && name.utf8.count > Limits.maxDisplayNameBytes {
            return "the \(what) is longer than \(Limits.maxDisplayNameBytes) bytes"
        }
        return nil
    }

    /// The first scalar the rule refuses, with its offset in scalars.
    public static func forbiddenScalar(in text: String, allowSpace: Bool) -> (Int, Unicode.Scalar)? {
        for (offset, scalar) in text.unicodeScalars.enumerated() where isForbidden(scalar, allowSpace: allowSpace) {
            return (offset, scalar)
        }
        return nil
    }

    public static func isForbidden(_ scalar: Unicode.Scalar, allowSpace: Bool) -> Bool {
        if scalar == " " { return !allowSpace }
        // Emoji presentation selectors only change how the character before them is drawn;
        // names keep them ("❤️"), emails never accept them (see isLocalScalar).
        if allowSpace && (scalar.value == 0xFE0E || scalar.value == 0xFE0F) { return false }
        let p = scalar.properties
        switch p.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator, .surrogate: return true
        default: return p.isWhitespace || p.isDefaultIgnorableCodePoint
        }
    }

    /// Letters, digits and marks of any script, and RFC 5322's atext symbols; no quoting.
    private static func isLocalScalar(_ s: Unicode.Scalar) -> Bool {
        if s.isASCII { return isASCIIAlnum(s) || "!#$%&'*+-/=?^_`{|}~.".unicodeScalars.contains(s) }
        return isWordScalar(s)
    }

    private static func isDomainScalar(_ s: Unicode.Scalar) -> Bool {
        if s.isASCII { return isASCIIAlnum(s) || s == "-" }
        return isWordScalar(s)
    }

    private static func isASCIIAlnum(_ s: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s)
    }

    private static func isWordScalar(_ s: Unicode.Scalar) -> Bool {
        if isForbidden(s, allowSpace: false) { return false }
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber:
            return true
        default: return false
        }
    }

    /// "U+200B", or "NUL" / "ESC" / "DEL" for the usual ones.
    public static func describe(_ s: Unicode.Scalar) -> String {
        let names: [UInt32: String] = [0: "NUL", 0x1B: "ESC", 0x7F: "DEL", 0x09: "a tab", 0x0A: "a newline", 0x0D: "CR", 0x20: "a space"]
        if let name = names[s.value] { return name }
        let hex = String(s.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// `text` with every refused scalar shown as <U+XXXX>, so an error message shows what
    /// was refused instead of passing it to the terminal.
    public static func visible(_ text: String) -> String {
        var out = ""
        for s in text.unicodeScalars {
            if isForbidden(s, allowSpace: true) { out += "<" + describe(s) + ">" } else { out.unicodeScalars.append(s) }
        }
        return out
    }
}
