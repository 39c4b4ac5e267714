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

    /// Why `text` can't be sent, or nil when it can.
    public static func problem(withText text: String) -> String? {
        if text.allSatisfy({ $0.isWhitespace }) { return "message text is empty" }
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
