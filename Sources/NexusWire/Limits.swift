/// Limits both sides enforce, so the client can refuse bad input before it is queued.
public enum Limits {
    public static let maxTextBytes = 64 * 1024
    public static let maxLocalIdBytes = 64
    public static let maxPasswordBytes = 72  // bcrypt reads no further
    public static let minPasswordLength = 8
    public static let maxDisplayNameBytes = 100
    public static let defaultPageSize = 50
    public static let maxPageSize = 500
    public static let maxSyncWaitSeconds = 60
    /// Items in one batch send.
    public static let maxBatchItems = 1000
    /// Bytes of one batch send's body.
    public static let maxBatchBytes = 8 * 1024 * 1024

    /// Bytes of a reaction: one emoji, or a short word ("ack", "+1").
    public static let maxReactionBytes = 64

    /// Why `emoji` can't be a reaction, or nil when it can.
    public static func problem(withReaction emoji: String) -> String? {
        if emoji.isEmpty || emoji.allSatisfy({ $0.isWhitespace }) { return "a reaction can't be empty" }
        if emoji.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "a reaction can't hold control characters (a NUL, a newline, a tab)"
        }
        let bytes = emoji.utf8.count
        if bytes > maxReactionBytes { return "a reaction is \(bytes) bytes; the limit is \(maxReactionBytes) (one emoji or a short word)" }
        return nil
    }

    /// Why `text` can't be sent, or nil when it can.
    public static func problem(withText text: String) -> String? {
        if text.allSatisfy({ $0.isWhitespace }) { return "message text is empty" }
        // A NUL would cut the text short downstream (C strings; PostgreSQL text can't hold
        // one), so it is refused, with where it is so the user can find it.
        if let nul = text.utf8.firstIndex(of: 0) {
            let before = text.utf8[..<nul]
            let line = before.reduce(1) { $1 == 10 ? $0 + 1 : $0 }
            let lineStart = before.lastIndex(of: 10).map { text.utf8.index(after: $0) } ?? text.utf8.startIndex
            let column = text.unicodeScalars[lineStart..<nul].count + 1
            let offset = text.utf8.distance(from: text.utf8.startIndex, to: nul)
            return "message text contains a NUL character at line \(line), column \(column) (byte offset \(offset)); "
                + "remove it (for example with `tr -d '\\000'`)"
        }
        let bytes = text.utf8.count
        if bytes > maxTextBytes {
            return "message text is \(bytes) bytes; the limit is \(maxTextBytes) bytes (64 KiB)"
        }
        return nil
    }

    /// Why `email`, as typed, can't name an account, or nil: the rule of `Identity`,
    /// applied to the form the server stores (NFC, lower-case).
    public static func problem(withEmail email: String) -> String? {
        Identity.problem(withEmail: Identity.normalizedEmail(email))
    }
}
