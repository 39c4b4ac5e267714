/// How a person names a message on the command line: `CONVERSATION/SEQ`, e.g. `12/345`.
/// Both numbers are printed by `send`, `tail` and `history`, are stable for the life of the
/// message (a seq is never reused, a delete keeps it), and need no lookup: the
/// conversation id routes the change and the seq names the message in it.
public struct MessageReference: Hashable, Sendable, CustomStringConvertible, Codable {
    public var conversationId: Int64
    public var seq: Int64

    public init(conversationId: Int64, seq: Int64) {
        self.conversationId = conversationId
        self.seq = seq
    }

    public var description: String { "\(conversationId)/\(seq)" }

    /// The words of a bad reference, for a usage error.
    public static let help = "name a message as CONVERSATION/SEQ, e.g. 12/345, as `tail`, `history` and `send` print it"

    /// Parses `12/345`; nil for anything else (no signs, spaces or leading zeros tricks: plain digits).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let c = Self.number(parts[0]), let s = Self.number(parts[1])
        else { return nil }
        self.init(conversationId: c, seq: s)
    }

    private static func number(_ part: Substring) -> Int64? {
        guard !part.isEmpty, part.count <= 18, part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int64(part), n > 0 else { return nil }
        return n
    }

    /// Encoded as its text, `"12/345"`, where JSON carries a reference.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let parsed = MessageReference(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not CONVERSATION/SEQ: \(text)"))
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
