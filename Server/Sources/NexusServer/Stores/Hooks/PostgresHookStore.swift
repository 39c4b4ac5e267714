import NexusWire
import PostgresNIO

struct PostgresHookStore: HookStore {
    let db: PostgresDatabase

    func createIncoming(owner: User, conversationId: Int64, name: String, secretHash: String, maxMembers: Int, at: Timestamp)
        async throws -> IncomingHookMade?
    {
        let now = at.milliseconds
        // The transaction wraps what its body throws, so the limit comes out as a value.
        let created = try await db.transaction { [db] c -> (id: Int64?, joined: MembershipOutcome?, full: Int?) in
            let logger = db.logger
            let taken = try await c.query(
                "SELECT 1 FROM hooks WHERE owner_id = \(owner.id) AND name = \(name) AND revoked_at IS NULL", logger: logger
            ).collect()
            guard taken.isEmpty else { return (nil, nil, nil) }
            // The conversation's row locked first, as a membership change locks it, so two
            // creations can't both take the last place.
            try await c.query("SELECT 1 FROM conversations WHERE id = \(conversationId) FOR UPDATE", logger: logger)
            let members = try await c.query("SELECT COUNT(*) FROM members WHERE conversation_id = \(conversationId)", logger: logger)
                .collect().first?.decode(Int64.self) ?? 0
            guard members < maxMembers else { return (nil, nil, Int(members)) }
            // A bot has no password: "!" is no bcrypt hash, so nothing verifies against it.
            let email = botEmail()
            guard let botId = try await c.query(
                """
                INSERT INTO users (email, display_name, password_hash, created_at, bot, owner_id)
                VALUES (\(email), \(name), '!', \(now), true, \(owner.id)) RETURNING id
                """, logger: logger
            ).collect().first?.decode(Int64.self) else { throw StoreError.inconsistent("bot of hook \(name)") }
            // As a person's join: with the members note that clears every replica's cache.
            let joined = try await PostgresMembershipStore.apply(
                IncomingHookMade.join(conversationId, owner: owner, bot: botId, email: email, name: name), on: c, db)
            return (try await c.query(
                """
                INSERT INTO hooks (owner_id, conversation_id, name, kind, secret_hash, bot_id, created_at)
                VALUES (\(owner.id), \(conversationId), \(name), 'incoming', \(secretHash), \(botId), \(now)) RETURNING id
                """, logger: logger
            ).collect().first?.decode(Int64.self), joined, nil)
        }
        if let full = created.full { throw HookBotOverLimit(members: full) }
        guard let joined = created.joined else { return nil }
        guard let hook = try await hook(id: created.id) else { throw StoreError.inconsistent("hook \(name)") }
        return try IncomingHookMade(hook: hook, outcome: joined)
    }

    func createOutgoing(
        owner: Int64, conversationId: Int64, name: String, url: String, secret: String, events: String?, limits: ServerLimits,
        at: Timestamp
    ) async throws -> Webhook? {
        // The transaction wraps what its body throws, so the limit comes out as a value.
        let created = try await db.transaction { [db] c -> (id: Int64?, over: OutgoingHooksOverLimit?) in
            let logger = db.logger
            // The conversation's row locked first, so two creations can't both take the last place.
            try await c.query("SELECT 1 FROM conversations WHERE id = \(conversationId) FOR UPDATE", logger: logger)
            let counts = try await c.query(
                """
                SELECT COUNT(*), COUNT(*) FILTER (WHERE owner_id = \(owner)) FROM hooks
                WHERE conversation_id = \(conversationId) AND kind = 'outgoing' AND revoked_at IS NULL
                """, logger: logger
            ).collect().first?.decode((Int64, Int64).self)
            let (all, mine) = counts ?? (0, 0)
            if mine >= limits.maxOutgoingHooksPerMemberPerConversation { return (nil, OutgoingHooksOverLimit(mine: true)) }
            if all >= limits.maxOutgoingHooksPerConversation { return (nil, OutgoingHooksOverLimit(mine: false)) }
            return (try await c.query(
                """
                INSERT INTO hooks (owner_id, conversation_id, name, kind, url, signing_secret, events, created_at)
                VALUES (\(owner), \(conversationId), \(name), 'outgoing', \(url), \(secret), \(events), \(at.milliseconds))
                ON CONFLICT DO NOTHING RETURNING id
                """, logger: logger
            ).collect().first?.decode(Int64.self), nil)
        }
        if let over = created.over { throw over }
        return try await hook(id: created.id)
    }

    private func hook(id: Int64?) async throws -> Webhook? {
        guard let id else { return nil }
        return try await db.rows("SELECT \(unescaped: hookColumns) FROM hooks h WHERE h.id = \(id)").first.map(Rows.hook)
    }

    func hooks(owner: Int64) async throws -> [Webhook] {
        try await db.rows("SELECT \(unescaped: hookColumns) FROM hooks h WHERE h.owner_id = \(owner) AND h.revoked_at IS NULL ORDER BY h.id")
            .map(Rows.hook)
    }

    func revoke(hookId: Int64, at: Timestamp) async throws {
        _ = try await db.rows("UPDATE hooks SET revoked_at = \(at.milliseconds) WHERE id = \(hookId)")
    }

    func incoming(secretHash: String) async throws -> IncomingHookTarget? {
        try await db.rows(
            "SELECT id, conversation_id, bot_id FROM hooks WHERE secret_hash = \(secretHash) AND kind = 'incoming' AND revoked_at IS NULL AND disabled_at IS NULL"
        ).first.map { row in
            IncomingHookTarget(hookId: try row.int("id") ?? 0, conversationId: try row.int("conversation_id") ?? 0, botId: try row.int("bot_id") ?? 0)
        }
    }

    func attempts(hookId: Int64, limit: Int) async throws -> [HookAttempt] {
        try await db.rows(
            """
            SELECT a.delivery_id, d.event, d.message_id, a.attempt, a.at, a.status, a.latency_ms, a.error
            FROM hook_attempts a JOIN hook_deliveries d ON d.id = a.delivery_id
            WHERE a.hook_id = \(hookId) ORDER BY a.id DESC LIMIT \(Int64(limit))
            """
        ).map(Rows.attempt)
    }

    func outgoingConversations() async throws -> Set<Int64> {
        Set(
            try await db.rows("SELECT DISTINCT conversation_id FROM hooks WHERE kind = 'outgoing' AND revoked_at IS NULL AND disabled_at IS NULL")
                .compactMap { try $0.int("conversation_id") })
    }

    /// Leases the deliveries to this replica: rows another replica is leasing are skipped
    /// (SKIP LOCKED while it claims, `claimed_until` after), so each attempt is made once.
    /// A replica killed mid-attempt leaves its lease to run out; then another retries.
    func claim(limit: Int, now: Timestamp, leaseMs: Int64, busy: [Int64]) async throws -> [PendingDelivery] {
        let n = now.milliseconds
        return try await db.transaction { [db] c in
            try await c.query(
                """
                WITH due AS (
                    SELECT d.id FROM hook_deliveries d JOIN hooks h ON h.id = d.hook_id
                    WHERE d.delivered_at IS NULL AND d.next_attempt_at <= \(n) AND d.claimed_until <= \(n)
                        AND h.revoked_at IS NULL AND h.disabled_at IS NULL AND NOT (d.hook_id = ANY(\(busy)::bigint[]))
                    ORDER BY d.next_attempt_at, d.id LIMIT \(Int64(limit))
                    FOR UPDATE OF d SKIP LOCKED
                ), leased AS (
                    UPDATE hook_deliveries d SET claimed_until = \(n + leaseMs) FROM due WHERE d.id = due.id
                    RETURNING d.id, d.hook_id, d.event, d.message_id, d.change_id, d.attempts, d.next_attempt_at
                )
                SELECT \(unescaped: claimColumns) FROM leased d JOIN hooks h ON h.id = d.hook_id
                \(unescaped: claimJoins)
                ORDER BY d.next_attempt_at, d.id
                """, logger: db.logger
            ).collect().map { try Rows.pendingDelivery($0.makeRandomAccess()) }
        }
    }

    func record(_ outcomes: [DeliveryOutcome], giveUpBefore: Timestamp) async throws -> [Int64] {
        guard !outcomes.isEmpty else { return [] }
        return try await db.transaction { [db] c in
            let logger = db.logger
            var disabled: [Int64] = []
            for o in outcomes {
                let id = o.delivery.id, hook = o.delivery.hookId, at = o.at.milliseconds
                guard o.tried else {
                    try await c.query(
                        "UPDATE hook_deliveries SET next_attempt_at = \(o.retryAt.milliseconds), claimed_until = 0 WHERE id = \(id)",
                        logger: logger)
                    continue
                }
                let status = o.status.map(Int64.init)
                try await c.query(
                    """
                    INSERT INTO hook_attempts (hook_id, delivery_id, attempt, at, status, latency_ms, error)
                    VALUES (\(hook), \(id), \(o.delivery.attempt), \(at), \(status), \(o.latencyMs), \(o.error))
                    """, logger: logger)
                if o.error == nil {
                    try await c.query(
                        "UPDATE hook_deliveries SET delivered_at = \(at), attempts = attempts + 1, claimed_until = 0 WHERE id = \(id)",
                        logger: logger)
                    try await c.query("UPDATE hooks SET failing_since = NULL WHERE id = \(hook) AND failing_since IS NOT NULL", logger: logger)
                } else {
                    try await c.query(
                        """
                        UPDATE hook_deliveries SET attempts = attempts + 1, next_attempt_at = \(o.retryAt.milliseconds), claimed_until = 0
                        WHERE id = \(id)
                        """, logger: logger)
                    try await c.query("UPDATE hooks SET failing_since = COALESCE(failing_since, \(at)) WHERE id = \(hook)", logger: logger)
                    let gone = try await c.query(
                        """
                        UPDATE hooks SET disabled_at = \(at), disabled_reason = \(o.giveUpReason)
                        WHERE id = \(hook) AND disabled_at IS NULL AND failing_since <= \(giveUpBefore.milliseconds) RETURNING id
                        """, logger: logger
                    ).collect()
                    disabled += try gone.map { try $0.decode(Int64.self) }
                }
            }
            return disabled
        }
    }

    func nextDue() async throws -> Timestamp? {
        try await db.rows(
            """
            SELECT MIN(GREATEST(d.next_attempt_at, d.claimed_until)) AS due FROM hook_deliveries d JOIN hooks h ON h.id = d.hook_id
            WHERE d.delivered_at IS NULL AND h.revoked_at IS NULL AND h.disabled_at IS NULL
            """
        ).first?.int("due").map(Timestamp.init(milliseconds:))
    }
}
