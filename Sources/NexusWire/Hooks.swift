/// Webhooks (docs/webhooks.md): an incoming hook posts into a conversation through a URL
/// holding a secret; an outgoing hook has nexusd POST each new message to a service.
public struct Webhook: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case incoming, outgoing
    }

    public var id: Int64
    public var name: String
    public var kind: Kind
    public var conversationId: Int64
    public var createdAt: Timestamp
    /// Incoming: the bot user its posts come from.
    public var botUserId: Int64?
    /// Outgoing: where nexusd POSTs.
    public var url: String?
    /// Outgoing: set when nexusd stopped delivering, with why.
    public var disabledAt: Timestamp?
    public var disabledReason: String?
    /// Outgoing: deliveries waiting to be made (or retried).
    public var pending: Int64?
    /// Outgoing: what it is sent, of `eventKinds`.
    public var events: [String]?
    /// What an outgoing hook can be sent (docs/webhooks.md); a hook gets all unless it chose.
    public static let eventKinds = ["message", "edit", "delete", "reaction", "membership"]

    public init(
        id: Int64, name: String, kind: Kind, conversationId: Int64, createdAt: Timestamp, botUserId: Int64? = nil,
        url: String? = nil, disabledAt: Timestamp? = nil, disabledReason: String? = nil, pending: Int64? = nil, events: [String]? = nil
    ) {
        self.id = id
        self.name = name
        self.kind = kind
        self.conversationId = conversationId
        self.createdAt = createdAt
        self.botUserId = botUserId
        self.url = url
        self.disabledAt = disabledAt
        self.disabledReason = disabledReason
        self.pending = pending
        self.events = events
    }
}

public struct CreateHookRequest: Codable, Sendable {
    public var conversationId: Int64
    public var name: String?
    /// Given: an outgoing hook to this http(s) URL; absent: an incoming hook.
    public var url: String?
    /// Outgoing: what to send it, of message, edit, delete, reaction and membership; absent: all.
    public var events: [String]?

    public init(conversationId: Int64, name: String? = nil, url: String? = nil, events: [String]? = nil) {
        self.conversationId = conversationId
        self.name = name
        self.url = url
        self.events = events
    }
}

/// The secrets are in this answer only; the server keeps the incoming one hashed.
public struct CreateHookResponse: Codable, Sendable {
    public var hook: Webhook
    /// Incoming: the path to POST to, `/v1/hooks/in/<secret>`, on the server's address.
    public var path: String?
    /// Outgoing: the key of the HMAC-SHA256 in `X-Nexus-Signature-256`.
    public var secret: String?

    public init(hook: Webhook, path: String? = nil, secret: String? = nil) {
        self.hook = hook
        self.path = path
        self.secret = secret
    }
}

public struct HooksResponse: Codable, Sendable {
    public var hooks: [Webhook]
    public init(hooks: [Webhook]) { self.hooks = hooks }
}

/// One try at delivering one event to an outgoing hook.
public struct HookAttempt: Codable, Hashable, Sendable {
    public var deliveryId: String
    public var event: String
    public var messageId: Int64
    /// 1 for the first try of this delivery.
    public var attempt: Int64
    public var at: Timestamp
    /// The receiver's HTTP status; nil when it could not be reached.
    public var status: Int?
    public var latencyMs: Int64
    /// Why it failed (a status outside 2xx, a timeout, a refused connection); nil when delivered.
    public var error: String?

    public init(
        deliveryId: String, event: String, messageId: Int64, attempt: Int64, at: Timestamp, status: Int?, latencyMs: Int64,
        error: String?
    ) {
        self.deliveryId = deliveryId
        self.event = event
        self.messageId = messageId
        self.attempt = attempt
        self.at = at
        self.status = status
        self.latencyMs = latencyMs
        self.error = error
    }
}

public struct HookDeliveriesResponse: Codable, Sendable {
    public var hook: Webhook
    /// Newest first.
    public var attempts: [HookAttempt]
    public init(hook: Webhook, attempts: [HookAttempt]) {
        self.hook = hook
        self.attempts = attempts
    }
}

/// What an incoming hook's POST answers: the messages it posted (one, or one per alert).
public struct IncomingHookResponse: Codable, Sendable {
    public var messages: [Message]
    /// True when the Idempotency-Key had been used: these are the messages it posted then.
    public var duplicate: Bool
    public init(messages: [Message], duplicate: Bool) {
        self.messages = messages
        self.duplicate = duplicate
    }
}

/// The body of an outgoing hook's POST. `event` says what happened (docs/webhooks.md):
/// message.created, message.edited, message.deleted, reaction.added, reaction.removed or
/// membership.changed. `message` is the message as it is when delivered; for a change,
/// `change` says what changed and `actor` who changed it.
public struct HookEvent: Codable, Sendable {
    public var event: String
    public var deliveryId: String
    public var hook: String
    public var conversationId: Int64
    public var message: Message?
    public var sender: User?
    public var change: MessageChange?
    public var actor: User?

    public init(
        event: String, deliveryId: String, hook: String, conversationId: Int64, message: Message?, sender: User?,
        change: MessageChange? = nil, actor: User? = nil
    ) {
        self.event = event
        self.deliveryId = deliveryId
        self.hook = hook
        self.conversationId = conversationId
        self.message = message
        self.sender = sender
        self.change = change
        self.actor = actor
    }
}
