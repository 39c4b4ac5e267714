import NexusWire
import SQLiteNIO

struct SQLiteHookStore: HookStore {
    let db: SQLiteDatabase

    func createIncoming(owner: User, conversationId: Int64, name: String, secretHash: String, maxMembers: Int, at: Timestamp)
        async throws -> IncomingHookMade?
    {
        let now = Int(at.milliseconds)
        let made = try await db.writer.perform(multiStatement: true) { db -> (id: Int?, joined: MembershipOutcome)? in
            if try await db.query(
                "SELECT 1 FROM hooks WHERE owner_id = ? AND name = ? AND revoked_at IS NULL", [.integer(Int(owner.id)), .text(name)]
            ).first != nil {
                return nil
            }
            let members = try await db.query("SELECT COUNT(*) AS n FROM members WHERE conversation_id = ?", [.integer(Int(conversationId))])
                .first?.int("n") ?? 0
            guard members < maxMembers else { throw HookBotOverLimit(members: Int(members)) }
            // A bot has no password: "!" is no bcrypt hash, so nothing verifies against it.
            let email = botEmail()
            let bot = try await db.query(
                "INSERT INTO users (email, display_name, password_hash, created_at, bot, owner_id) VALUES (?, ?, '!', ?, 1, ?) RETURNING id",
                [.text(email), .text(name), .integer(now), .integer(Int(owner.id))])
            guard let botId = bot.first?.int("id") else { throw StoreError.inconsistent("bot of hook \(name)") }
            let joined = try await SQLiteMembershipStore.apply(
                IncomingHookMade.join(conversationId, owner: owner, bot: botId, email: email, name: name), on: db)
            let hook = try await db.query(
                """
                INSERT INTO hooks (owner_id, conversation_id, name, kind, secret_hash, bot_id, created_at)
                VALUES (?, ?, ?, 'incoming', ?, ?, ?) RETURNING id
                """, [.integer(Int(owner.id)), .integer(Int(conversationId)), .text(name), .text(secretHash), .integer(Int(botId)), .integer(now)])
            return (hook.first?.column("id")?.integer, joined)
        }
        guard let made else { return nil }
        guard let hook = try await hook(id: made.id.map(Int64.init)) else { throw StoreError.inconsistent("hook \(name)") }
        return try IncomingHookMade(hook: hook, outcome: made.joined)
    }

    func createOutgoing(
        owner: Int64, conversationId: Int64, name: String, url: String, secret: String, events: String?, limits: ServerLimits,
        at: Timestamp
    ) async throws -> Webhook? {
        let rows = try await db.writer.perform(multiStatement: true) { db -> [SQLiteRow] in
            let counts = try await db.query(
                """
                SELECT COUNT(*) AS n, COALESCE(SUM(owner_id = ?), 0) AS mine FROM hooks
                WHERE conversation_id = ? AND kind = 'outgoing' AND revoked_at IS NULL
                """, [.integer(Int(owner)), .integer(Int(conversationId))]).first
            if (counts?.int("mine") ?? 0) >= limits.maxOutgoingHooksPerMemberPerConversation { throw OutgoingHooksOverLimit(mine: true) }
            if (counts?.int("n") ?? 0) >= limits.maxOutgoingHooksPerConversation { throw OutgoingHooksOverLimit(mine: false) }
            return try await db.query(
                """
                INSERT INTO hooks (owner_id, conversation_id, name, kind, url, signing_secret, events, created_at)
                VALUES (?, ?, ?, 'outgoing', ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id
                """,
                [.integer(Int(owner)), .integer(Int(conversationId)), .text(name), .text(url), .text(secret), events.map { .text($0) } ?? .null,
                 .integer(Int(at.milliseconds))])
        }
        return try await hook(id: rows.first?.int("id"))
    }

    private func hook(id: Int64?) async throws -> Webhook? {
        guard let id else { return nil }
        return try await db.read("SELECT \(hookColumns) FROM hooks h WHERE h.id = ?", [.integer(Int(id))]).first.map(Rows.hook)
    }

    func hooks(owner: Int64) async throws -> [Webhook] {
        try await db.read("SELECT \(hookColumns) FROM hooks h WHERE h.owner_id = ? AND h.revoked_at IS NULL ORDER BY h.id", [.integer(Int(owner))])
            .map(Rows.hook)
    }

    func revoke(hookId: Int64, at: Timestamp) async throws {
        _ = try await db.writer.perform { db in
            try await db.query("UPDATE hooks SET revoked_at = ? WHERE id = ?", [.integer(Int(at.milliseconds)), .integer(Int(hookId))])
        }
    }

    func incoming(secretHash: String) async throws -> IncomingHookTarget? {
        try await db.read(
            "SELECT id, conversation_id, bot_id FROM hooks WHERE secret_hash = ? AND kind = 'incoming' AND revoked_at IS NULL AND disabled_at IS NULL",
            [.text(secretHash)]
        ).first.map { row in
            IncomingHookTarget(hookId: row.int("id") ?? 0, conversationId: row.int("conversation_id") ?? 0, botId: row.int("bot_id") ?? 0)
        }
    }

    func attempts(hookId: Int64, limit: Int) async throws -> [HookAttempt] {
        try await db.read(
            """
            SELECT a.delivery_id, d.event, d.message_id, a.attempt, a.at, a.status, a.latency_ms, a.error
            FROM hook_attempts a JOIN hook_deliveries d ON d.id = a.delivery_id
            WHERE a.hook_id = ? ORDER BY a.id DESC LIMIT ?
            """, [.integer(Int(hookId)), .integer(limit)]
        ).map(Rows.attempt)
    }

    func outgoingConversations() async throws -> Set<Int64> {
        Set(
            try await db.read("SELECT DISTINCT conversation_id FROM hooks WHERE kind = 'outgoing' AND revoked_at IS NULL AND disabled_at IS NULL")
                .compactMap { $0.int("conversation_id") })
    }

    /// One process owns a SQLite file, so no lease is written: the worker keeps what it has
    /// in flight in memory (`busy`), and a kill -9 leaves nothing claimed behind.
    func claim(limit: Int, now: Timestamp, leaseMs: Int64, busy: [Int64]) async throws -> [PendingDelivery] {
        let notBusy = busy.isEmpty ? "" : "AND d.hook_id NOT IN (\(busy.map(String.init).joined(separator: ",")))"
        return try await db.read(
            """
            SELECT \(claimColumns) FROM hook_deliveries d JOIN hooks h ON h.id = d.hook_id
            \(claimJoins)
            WHERE d.delivered_at IS NULL AND d.next_attempt_at <= ? AND h.revoked_at IS NULL AND h.disabled_at IS NULL \(notBusy)
            ORDER BY d.next_attempt_at, d.id LIMIT ?
            """, [.integer(Int(now.milliseconds)), .integer(limit)]
        ).map(Rows.pendingDelivery)
    }

    func record(_ outcomes: [DeliveryOutcome], giveUpBefore: Timestamp) async throws -> [Int64] {
        guard !outcomes.isEmpty else { return [] }
        return try await db.writer.perform(multiStatement: true) { db in
            var disabled: [Int64] = []
            for o in outcomes {
                let id = SQLiteData.integer(Int(o.delivery.id)), hook = SQLiteData.integer(Int(o.delivery.hookId))
                let at = SQLiteData.integer(Int(o.at.milliseconds))
                guard o.tried else {
                    _ = try await db.query("UPDATE hook_deliveries SET next_attempt_at = ? WHERE id = ?", [.integer(Int(o.retryAt.milliseconds)), id])
                    continue
                }
                _ = try await db.query(
                    "INSERT INTO hook_attempts (hook_id, delivery_id, attempt, at, status, latency_ms, error) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [hook, id, .integer(Int(o.delivery.attempt)), at, o.status.map { .integer($0) } ?? .null, .integer(Int(o.latencyMs)),
                     o.error.map { .text($0) } ?? .null])
                if o.error == nil {
                    _ = try await db.query("UPDATE hook_deliveries SET delivered_at = ?, attempts = attempts + 1 WHERE id = ?", [at, id])
                    _ = try await db.query("UPDATE hooks SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL", [hook])
                } else {
                    _ = try await db.query(
                        "UPDATE hook_deliveries SET attempts = attempts + 1, next_attempt_at = ? WHERE id = ?",
                        [.integer(Int(o.retryAt.milliseconds)), id])
                    _ = try await db.query("UPDATE hooks SET failing_since = COALESCE(failing_since, ?) WHERE id = ?", [at, hook])
                    let gone = try await db.query(
                        """
                        UPDATE hooks SET disabled_at = ?, disabled_reason = ?
                        WHERE id = ? AND disabled_at IS NULL AND failing_since <= ? RETURNING id
                        """, [at, .text(o.giveUpReason), hook, .integer(Int(giveUpBefore.milliseconds))])
                    disabled += gone.compactMap { $0.int("id") }
                }
            }
            return disabled
        }
    }

    func nextDue() async throws -> Timestamp? {
        try await db.read(
            """
            SELECT MIN(d.next_attempt_at) AS due FROM hook_deliveries d JOIN hooks h ON h.id = d.hook_id
            WHERE d.delivered_at IS NULL AND h.revoked_at IS NULL AND h.disabled_at IS NULL
            """
        ).first?.int("due").map(Timestamp.init(milliseconds:))
    }
}
