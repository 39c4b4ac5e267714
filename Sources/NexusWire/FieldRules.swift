/// The rules docs/openapi.yaml states for names the API takes, written once: the server
/// checks a name with `allows`, and OpenAPITests requires the spec to state each rule's
/// `pattern` and `maxLength` for the same field, so the two cannot drift apart.
public struct FieldRule: Sendable {
    /// As docs/openapi.yaml writes it (ECMA-262, which Swift's Regex reads the same way).
    public let pattern: String
    public let maxLength: Int

    /// Compiled per call: Regex is not Sendable, so it can't be kept in a shared rule, and
    /// a name is checked once per token or bot made.
    public func allows(_ text: String) -> Bool {
        guard text.utf8.count <= maxLength, let regex = try? Regex(pattern) else { return false }
        return (try? regex.wholeMatch(in: text)) != nil
    }
}

public enum FieldRules {
    /// An access token's or a bot's name. A letter or digit first; a '.' only between
    /// other characters, as a bot's name becomes the start of its email address.
    public static let tokenName = FieldRule(pattern: #"^[A-Za-z0-9](?:[A-Za-z0-9_-]|\.[A-Za-z0-9_-])*$"#, maxLength: 40)
}
