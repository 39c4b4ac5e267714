import Logging
import NexusWire

/// What start-up does to rows stored before the identity rule (NexusCore's Identity), the
/// same on both backends (docs/deploy.md, "Emails and names from before the rule"):
/// - an email is stored in its normal form (NFC, lower-case) when that form is valid and
///   no other account has it; when two accounts share a normal form, the one already
///   stored in it keeps it, else the oldest;
/// - any other account is disabled: its sessions are revoked and its email becomes
///   `disabled:<id>@invalid`, which no one can register, log in with or look up, so it
///   can never show as someone else;
/// - a display name or a group title loses the characters the rule refuses.
struct IdentityRepair: Sendable {
    struct Row: Sendable {
        var id: Int64
        var text: String
    }

    struct Change: Sendable {
        var id: Int64
        var from: String
        var to: String
    }

    var emails: [Change] = []
    var disabled: [Change] = []
    var names: [Change] = []
    var titles: [Change] = []

    var isEmpty: Bool { emails.isEmpty && disabled.isEmpty && names.isEmpty && titles.isEmpty }

    static func disabledEmail(id: Int64) -> String { "disabled:\(id)@invalid" }

    /// `users` hold (id, email) and `displayNames` (id, display name); `titles` the groups'.
    init(users: [Row], displayNames: [Row], titles: [Row]) {
        // Only distinct bytes count as a change: String's == would call NFD and NFC equal.
        func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }
        var claims: [[UInt8]: [Row]] = [:]
        for row in users.sorted(by: { $0.id < $1.id }) {
            let normal = Identity.normalizedEmail(row.text)
            if row.text.hasPrefix("disabled:") && same(row.text, Self.disabledEmail(id: row.id)) { continue }
            if Identity.problem(withEmail: normal) != nil {
                disabled.append(Change(id: row.id, from: row.text, to: Self.disabledEmail(id: row.id)))
            } else {
                claims[Array(normal.utf8), default: []].append(row)
            }
        }
        for (normalBytes, rows) in claims {
            let normal = String(decoding: normalBytes, as: UTF8.self)
            let keeper = rows.first { same($0.text, normal) } ?? rows[0]
            for row in rows where row.id != keeper.id {
                disabled.append(Change(id: row.id, from: row.text, to: Self.disabledEmail(id: row.id)))
            }
            if !same(keeper.text, normal) { emails.append(Change(id: keeper.id, from: keeper.text, to: normal)) }
        }
        emails.sort { $0.id < $1.id }
        disabled.sort { $0.id < $1.id }
        names = Self.cleaned(displayNames) { id in "user \(id)" }
        self.titles = Self.cleaned(titles) { id in "group \(id)" }
    }

    /// Names with the refused characters taken out, or `fallback` when nothing is left.
    private static func cleaned(_ rows: [Row], fallback: (Int64) -> String) -> [Change] {
        rows.compactMap { row in
            guard Identity.forbiddenScalar(in: row.text, allowSpace: true) != nil else { return nil }
            var kept = String.UnicodeScalarView()
            for s in row.text.unicodeScalars where !Identity.isForbidden(s, allowSpace: true) { kept.append(s) }
            let text = String(kept).trimmingSpaces()
            return Change(id: row.id, from: row.text, to: text.isEmpty ? fallback(row.id) : text)
        }
    }

    func log(_ logger: Logger) {
        for c in emails { logger.notice("identity rule: user \(c.id)'s email '\(Identity.visible(c.from))' is now stored as '\(c.to)'") }
        for c in disabled {
            logger.warning(
                "identity rule: user \(c.id) disabled: its email '\(Identity.visible(c.from))' breaks the rule or another account has it; it is now '\(c.to)' and its sessions are revoked (docs/deploy.md)")
        }
        for c in names { logger.notice("identity rule: user \(c.id)'s display name '\(Identity.visible(c.from))' is now '\(c.to)'") }
        for c in titles { logger.notice("identity rule: conversation \(c.id)'s title '\(Identity.visible(c.from))' is now '\(c.to)'") }
    }
}
