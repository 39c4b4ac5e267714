import NexusWire

/// The identity rule (NexusCore's Identity) applied to request fields, as 400s that name
/// the problem. Every lookup by email goes through `email`, so stored emails and the ones
/// asked for are compared in one form (NFC, lower-case) by plain equality.
enum IdentityInput {
    static func email(_ raw: String) throws -> String {
        try rejectNUL(raw, field: "email", code: "invalid_email")
        let email = Identity.normalizedEmail(raw)
        if let problem = Identity.problem(withEmail: email) { throw APIError.badRequest(sentence(problem), code: "invalid_email") }
        return email
    }

    /// The trimmed display name, or nil when none was given.
    static func displayName(_ raw: String?) throws -> String? {
        try name(raw, what: "display name", code: "invalid_name", checkLength: true)
    }

    /// A title over the length limit is not refused here: the caller shortens it.
    static func title(_ raw: String?) throws -> String? {
        try name(raw, what: "title", code: "invalid_name", checkLength: false)
    }

    private static func name(_ raw: String?, what: String, code: String, checkLength: Bool) throws -> String? {
        guard let raw else { return nil }
        try rejectNUL(raw, field: what, code: code)
        let name = String(decoding: raw.trimmingSpaces()._nfcCodeUnits, as: UTF8.self)
        if name.isEmpty { return nil }
        if let problem = Identity.problem(withName: name, what: what, checkLength: checkLength) { throw APIError.badRequest(sentence(problem), code: code) }
        return name
    }

    /// PostgreSQL's text can't hold NUL and SQLite reads text back cut at it, so no text
    /// field takes one: both backends answer alike, and nothing is stored cut short.
    static func rejectNUL(_ text: String, field: String, code: String) throws {
        if let offset = text.unicodeScalars.firstIndex(of: "\u{0}").map({ text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: $0) }) {
            throw APIError.badRequest(
                "The \(field) contains a NUL character (U+0000) at character \(offset + 1); remove it and send again.", code: code)
        }
    }

    private static func sentence(_ s: String) -> String { s.prefix(1).uppercased() + s.dropFirst() + "." }

    /// A new password: for a registration and for `passwd`.
    static func checkPassword(_ password: String) throws {
        try IdentityInput.rejectNUL(password, field: "password", code: "invalid_password")
        if password.count < Limits.minPasswordLength {
            throw APIError.badRequest("The password must be at least \(Limits.minPasswordLength) characters.", code: "weak_password")
        }
        if let problem = Passwords.problem(with: password) {
            throw APIError.badRequest(problem, code: "invalid_password")
        }
        if password.utf8.count > Limits.maxPasswordBytes {
            throw APIError.badRequest("The password must be at most \(Limits.maxPasswordBytes) bytes.", code: "invalid_password")
        }
    }
}
