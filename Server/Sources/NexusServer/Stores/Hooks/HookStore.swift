import NexusWire

/// Where an incoming hook posts: found by the hash of the secret in its URL.
struct IncomingHookTarget: Sendable {
    var hookId: Int64
    var conversationId: Int64
    var botId: Int64
}

/// A new incoming hook, and its bot's join: a membership event like a person's.
struct IncomingHookMade: Sendable {
    var hook: Webhook
    var joined: Message
    /// The members around the join, so everyone concerned is told.
    var before: [Int64]
    var after: [Int64]

    /// The join as a membership change made inside the hook's own transaction; its localId
    /// (the owner's, per hook) can't meet one of the owner's own.
    static func join(_ conversationId: Int64, owner: User, bot: Int64, email: String, name: String) -> MembershipChange {
        MembershipChange(
            conversationId: conversationId, actor: owner, localId: "hook-bot-\(bot)", kind: .added,
            users: [User(id: bot, email: email, displayName: name, bot: true)])
    }

    init(hook: Webhook, outcome: MembershipOutcome) throws {
        guard case .created(let message, let before, let after) = outcome else { throw StoreError.inconsistent("the join of hook \(hook.name)'s bot") }
        self.hook = hook
        joined = message
        self.before = before
        self.after = after
    }
}

/// An incoming hook's bot would take the conversation past `nexusd --max-group-members`.
struct HookBotOverLimit: Error {
    var members: Int
}

/// A new outgoing hook would pass ServerLimits' outgoing-hook limits (each message is
/// POSTed once per hook): the owner's own limit when `mine`.
struct OutgoingHooksOverLimit: Error {
    var mine: Bool
}

/// One outgoing delivery, claimed for an attempt.
struct PendingDelivery: Sendable {
    var id: Int64
    var hookId: Int64
    var hookName: String
    var url: String
    var secret: String
    var event: String
    var messageId: Int64
    /// This attempt's number: 1 for the first.
    var attempt: Int64
    /// nil when the message is gone; the event is then sent without it.
    var message: Message?
    var sender: User?
    /// For an edit, delete or reaction: what changed, and who changed it.
    var change: MessageChange?
    var actor: User?
}

/// What one attempt came to.
struct DeliveryOutcome: Sendable {
    var delivery: PendingDelivery
    var at: Timestamp
    var status: Int?
    var latencyMs: Int64
    /// nil when delivered (a 2xx answer).
    var error: String?
    /// When to try again after a failure; for a delivery never tried because an earlier
    /// one of its hook failed, the same time, with `tried` false (no attempt counted).
    var retryAt: Timestamp
    var tried = true
    /// What `hook list` says if this failure disables the hook.
    var giveUpReason = ""
}

/// Webhooks: incoming (post through a URL) and outgoing (nexusd POSTs each new message).
protocol HookStore: Sendable {
    /// Makes the hook's bot user and the hook, and adds the bot to the conversation with
    /// its membership event; nil when the owner already has a hook by that name. The bot is
    /// a member like any other, so it is counted in the same transaction: `HookBotOverLimit`
    /// when the conversation already has `maxMembers`.
    func createIncoming(owner: User, conversationId: Int64, name: String, secretHash: String, maxMembers: Int, at: Timestamp)
        async throws -> IncomingHookMade?
    /// Nil when the owner already has a hook by that name; `OutgoingHooksOverLimit` when the
    /// conversation, or the owner in it, has its limit of live outgoing hooks (`limits`), counted in
    /// the same transaction.
    func createOutgoing(
        owner: Int64, conversationId: Int64, name: String, url: String, secret: String, events: String?, limits: ServerLimits,
        at: Timestamp
    ) async throws -> Webhook?
    /// The owner's hooks that are not revoked, oldest first.
    func hooks(owner: Int64) async throws -> [Webhook]
    func revoke(hookId: Int64, at: Timestamp) async throws
    func incoming(secretHash: String) async throws -> IncomingHookTarget?
    /// The newest attempts of a hook's deliveries, newest first.
    func attempts(hookId: Int64, limit: Int) async throws -> [HookAttempt]
    /// The conversations with a live outgoing hook, so a send wakes the worker only for them.
    func outgoingConversations() async throws -> Set<Int64>
    /// Up to `limit` deliveries due at `now`, none of the `busy` hooks', oldest first. With
    /// replicas each is leased for `leaseMs` (FOR UPDATE SKIP LOCKED), so one replica makes it.
    func claim(limit: Int, now: Timestamp, leaseMs: Int64, busy: [Int64]) async throws -> [PendingDelivery]
    /// Records attempts; a hook failing since `giveUpBefore` or earlier is disabled, with
    /// its failure's `giveUpReason`. Returns the hooks disabled.
    func record(_ outcomes: [DeliveryOutcome], giveUpBefore: Timestamp) async throws -> [Int64]
    /// When the next pending delivery of a live hook is due, if any is.
    func nextDue() async throws -> Timestamp?
}

/// The columns of a hook row (`h`) that Rows.hook reads, with the pending count.
let hookColumns = """
    h.id, h.name, h.kind, h.conversation_id, h.created_at, h.bot_id, h.url, h.disabled_at, h.disabled_reason, h.events,
    (SELECT COUNT(*) FROM hook_deliveries d WHERE d.hook_id = h.id AND d.delivered_at IS NULL) AS pending
    """

/// The columns `claim` selects on both backends.
let claimColumns = """
    d.id AS d_id, d.hook_id, d.event, d.message_id AS d_message_id, d.attempts, h.name AS hook_name, h.url AS hook_url,
    h.signing_secret, \(messageColumns),
    u.email AS u_email, u.display_name AS u_display_name,
    x.kind AS x_kind, x.user_id AS x_user_id, x.emoji AS x_emoji, x.at AS x_at, a.email AS a_email, a.display_name AS a_display_name
    """

/// What `claim` joins to a delivery `d` on both backends: its message and sender, and the change it is about with who made it.
let claimJoins = """
    LEFT JOIN messages m ON m.id = d.message_id LEFT JOIN users u ON u.id = m.sender_id
    LEFT JOIN message_changes x ON x.id = d.change_id LEFT JOIN users a ON a.id = x.user_id
    """

extension Rows {
    static func hook(_ row: some StoreRow) throws -> Webhook {
        let kind = Webhook.Kind(rawValue: try row.text("kind") ?? "") ?? .incoming
        return Webhook(
            id: try row.int("id") ?? 0, name: try row.text("name") ?? "", kind: kind,
            conversationId: try row.int("conversation_id") ?? 0, createdAt: try timestamp(row, "created_at") ?? Timestamp(milliseconds: 0),
            botUserId: try row.int("bot_id"), url: try row.text("url"), disabledAt: try timestamp(row, "disabled_at"),
            disabledReason: try row.text("disabled_reason"), pending: kind == .outgoing ? try row.int("pending") ?? 0 : nil,
            events: kind == .outgoing ? HookEventKind.kinds(try row.text("events")) : nil)
    }

    static func pendingDelivery(_ row: some StoreRow) throws -> PendingDelivery {
        let message = try row.int("id") == nil ? nil : try Rows.message(row)
        return PendingDelivery(
            id: try row.int("d_id") ?? 0, hookId: try row.int("hook_id") ?? 0, hookName: try row.text("hook_name") ?? "",
            url: try row.text("hook_url") ?? "", secret: try row.text("signing_secret") ?? "", event: try row.text("event") ?? "",
            messageId: try row.int("d_message_id") ?? 0, attempt: (try row.int("attempts") ?? 0) + 1, message: message,
            sender: try message.map { m in
                User(id: m.senderId, email: try row.text("u_email") ?? "", displayName: try row.text("u_display_name") ?? "")
            },
            change: try change(row, seq: message?.seq ?? 0),
            actor: try row.int("x_user_id").map { id in
                User(id: id, email: try row.text("a_email") ?? "", displayName: try row.text("a_display_name") ?? "")
            })
    }

    private static func change(_ row: some StoreRow, seq: Int64) throws -> MessageChange? {
        guard let kind = try row.text("x_kind").flatMap(MessageChange.Kind.init(rawValue:)), let user = try row.int("x_user_id") else { return nil }
        return MessageChange(kind: kind, userId: user, emoji: try row.text("x_emoji"), at: try timestamp(row, "x_at") ?? Timestamp(milliseconds: 0), seq: seq)
    }

    static func attempt(_ row: some StoreRow) throws -> HookAttempt {
        HookAttempt(
            deliveryId: String(try row.int("delivery_id") ?? 0), event: try row.text("event") ?? "",
            messageId: try row.int("message_id") ?? 0, attempt: try row.int("attempt") ?? 0,
            at: try timestamp(row, "at") ?? Timestamp(milliseconds: 0), status: try row.int("status").map { Int($0) },
            latencyMs: try row.int("latency_ms") ?? 0, error: try row.text("error"))
    }
}

/// An address for a hook's bot: never a real mailbox (.invalid is reserved, RFC 2606).
func botEmail() -> String {
    "hook-" + String(UInt64.random(in: 0...UInt64.max), radix: 16) + "@bots.invalid"
}
