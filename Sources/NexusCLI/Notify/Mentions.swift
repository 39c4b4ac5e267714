import NexusCore

/// A mention of someone in a message's text: `@` and their email's name (`@alice` for
/// alice@example.com) or the first word of their display name, in any case, ending at a
/// character that is not a letter, digit, `.`, `_` or `-`.
enum Mentions {
    static func names(of user: User) -> [String] {
        let local = user.email.split(separator: "@").first.map(String.init) ?? ""
        let first = user.displayName.split(separator: " ").first.map(String.init) ?? ""
        return Array(Set([local, first].filter { !$0.isEmpty }.map { $0.lowercased() }))
    }

    static func mention(of names: [String], in text: String) -> Bool {
        guard text.contains("@") else { return false }
        let lower = text.lowercased()
        for name in names {
            let pieces = lower.components(separatedBy: "@" + name)
            // What follows each "@name": a mention when it ends the word.
            for after in pieces.dropFirst() where after.first.map({ !($0.isLetter || $0.isNumber || "._-".contains($0)) }) ?? true {
                return true
            }
        }
        return false
    }
}
