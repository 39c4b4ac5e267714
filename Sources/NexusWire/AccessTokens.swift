/// What an access token may do (docs/tokens.md). A session (from login) may do
/// everything; `all` is the same except managing tokens and bots.
public enum TokenScope: String, Codable, Sendable, CaseIterable {
    /// Read conversations, messages, the feed and statuses; move one's own receipts.
    case read
    /// Send (and flush the outbox) to its conversations, nothing else.
    case send
    /// What a session can do, except managing tokens, bots and the password.
    case all
}

/// `POST /v1/tokens`: a new access token of the caller's.
public struct CreateTokenRequest: Codable, Sendable {
    public var name: String
    public var scope: TokenScope
    /// Empty or absent: every conversation of the owner.
    public var conversations: [Int64]?
    /// Seconds from now; absent: the token never expires.
    public var expiresIn: Int64?

    public init(name: String, scope: TokenScope, conversations: [Int64]? = nil, expiresIn: Int64? = nil) {
        self.name = name
        self.scope = scope
        self.conversations = conversations
        self.expiresIn = expiresIn
    }
}

/// An access token as its owner sees it: never its secret.
public struct AccessToken: Codable, Sendable, Equatable {
    public var name: String
    public var scope: TokenScope
    /// The conversations it is limited to; empty for all of the owner's.
    public var conversations: [Int64]
    public var createdAt: Timestamp
    /// To the hour: the server records a use at most once an hour.
    public var lastUsedAt: Timestamp?
    /// Absent: never expires.
    public var expiresAt: Timestamp?

    public init(
        name: String, scope: TokenScope, conversations: [Int64], createdAt: Timestamp, lastUsedAt: Timestamp? = nil,
        expiresAt: Timestamp? = nil
    ) {
        self.name = name
        self.scope = scope
        self.conversations = conversations
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
    }
}

/// The answer to creating a token or a bot: the secret, shown this once.
public struct CreatedToken: Codable, Sendable {
    public var token: String
    public var accessToken: AccessToken
    /// Whose token it is: the caller, or the new bot.
    public var user: User

    public init(token: String, accessToken: AccessToken, user: User) {
        self.token = token
        self.accessToken = accessToken
        self.user = user
    }
}

public struct TokensResponse: Codable, Sendable {
    public var tokens: [AccessToken]
    public init(tokens: [AccessToken]) { self.tokens = tokens }
}

/// `POST /v1/bots`: a bot account owned by the caller, and its first token.
public struct CreateBotRequest: Codable, Sendable {
    public var name: String
    public var displayName: String?
    public var scope: TokenScope
    public var conversations: [Int64]?
    public var expiresIn: Int64?

    public init(name: String, displayName: String? = nil, scope: TokenScope, conversations: [Int64]? = nil, expiresIn: Int64? = nil) {
        self.name = name
        self.displayName = displayName
        self.scope = scope
        self.conversations = conversations
        self.expiresIn = expiresIn
    }
}

/// One of the caller's bots, with its tokens (never their secrets).
public struct Bot: Codable, Sendable {
    public var name: String
    public var user: User
    public var tokens: [AccessToken]

    public init(name: String, user: User, tokens: [AccessToken]) {
        self.name = name
        self.user = user
        self.tokens = tokens
    }
}

public struct BotsResponse: Codable, Sendable {
    public var bots: [Bot]
    public init(bots: [Bot]) { self.bots = bots }
}

/// The rules for token and bot names, shared by nexusctl (before sending) and nexusd.
public enum TokenNames {
    public static let maxLength = FieldRules.tokenName.maxLength

    /// Why `name` can't name a token or a bot, or nil.
    public static func problem(with name: String, what: String) -> String? {
        if !FieldRules.tokenName.allows(name) {
            return "'\(name)' can't name a \(what): use 1 to \(maxLength) letters, digits, '-', '_' and '.', starting with a letter or digit, "
                + "with a '.' only between other characters"
        }
        return nil
    }

    /// A bot's address: its name, then the owner's id, at a domain that can't exist
    /// (RFC 2606), so it never collides with a person's and `new` takes it like any email.
    public static func botEmail(name: String, ownerId: Int64) -> String {
        "\(name.lowercased()).\(ownerId)@bots.invalid"
    }

    /// "90d", "12h", "30m", "3600s" or "3600" in seconds; nil for "never" or text that is none of these.
    public static func seconds(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        guard let last = text.last else { return nil }
        let (digits, unit) = units[last].map { (text.dropLast(), $0) } ?? (text[...], 1)
        guard let value = Int64(digits), value > 0 else { return nil }
        let (seconds, overflow) = value.multipliedReportingOverflow(by: unit)
        return overflow ? nil : seconds
    }
}
