/// Webhooks' tables (docs/webhooks.md), one migration on each backend.
///
/// Outgoing deliveries are queued by a trigger on `messages`, so a delivery row commits
/// in the same transaction as its message on both backends, whichever code path inserts
/// it: a message can never be stored without its deliveries, and a kill -9 loses none.
enum HookSchema {
    static let sqlite: [String] = [
        """
        CREATE TABLE hooks (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            owner_id INTEGER NOT NULL REFERENCES users(id),
            conversation_id INTEGER NOT NULL REFERENCES conversations(id),
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            secret_hash TEXT UNIQUE,
            bot_id INTEGER REFERENCES users(id),
            url TEXT,
            signing_secret TEXT,
            created_at INTEGER NOT NULL,
            revoked_at INTEGER,
            disabled_at INTEGER,
            disabled_reason TEXT,
            failing_since INTEGER
        )
        """,
        "CREATE UNIQUE INDEX hooks_by_name ON hooks (owner_id, name) WHERE revoked_at IS NULL",
        "CREATE INDEX hooks_outgoing ON hooks (conversation_id) WHERE kind = 'outgoing' AND revoked_at IS NULL",
        """
        CREATE TABLE hook_deliveries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            hook_id INTEGER NOT NULL REFERENCES hooks(id),
            event TEXT NOT NULL,
            message_id INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            delivered_at INTEGER,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER NOT NULL DEFAULT 0,
            claimed_until INTEGER NOT NULL DEFAULT 0
        )
        """,
        "CREATE INDEX hook_deliveries_due ON hook_deliveries (next_attempt_at, id) WHERE delivered_at IS NULL",
        """
        CREATE TABLE hook_attempts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            hook_id INTEGER NOT NULL,
            delivery_id INTEGER NOT NULL,
            attempt INTEGER NOT NULL,
            at INTEGER NOT NULL,
            status INTEGER,
            latency_ms INTEGER NOT NULL,
            error TEXT
        )
        """,
        "CREATE INDEX hook_attempts_by_hook ON hook_attempts (hook_id, id)",
        """
        CREATE TRIGGER hook_enqueue AFTER INSERT ON messages BEGIN
            INSERT INTO hook_deliveries (hook_id, event, message_id, created_at)
            SELECT id, 'message.created', NEW.id, NEW.sent_at FROM hooks
            WHERE conversation_id = NEW.conversation_id AND kind = 'outgoing' AND revoked_at IS NULL AND disabled_at IS NULL;
        END
        """,
    ]

    static let postgres: [String] = [
        """
        CREATE TABLE hooks (
            id BIGSERIAL PRIMARY KEY,
            owner_id BIGINT NOT NULL REFERENCES users(id),
            conversation_id BIGINT NOT NULL REFERENCES conversations(id),
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            secret_hash TEXT UNIQUE,
            bot_id BIGINT REFERENCES users(id),
            url TEXT,
            signing_secret TEXT,
            created_at BIGINT NOT NULL,
            revoked_at BIGINT,
            disabled_at BIGINT,
            disabled_reason TEXT,
            failing_since BIGINT
        )
        """,
        "CREATE UNIQUE INDEX hooks_by_name ON hooks (owner_id, name) WHERE revoked_at IS NULL",
        "CREATE INDEX hooks_outgoing ON hooks (conversation_id) WHERE kind = 'outgoing' AND revoked_at IS NULL",
        """
        CREATE TABLE hook_deliveries (
            id BIGSERIAL PRIMARY KEY,
            hook_id BIGINT NOT NULL REFERENCES hooks(id),
            event TEXT NOT NULL,
            message_id BIGINT NOT NULL,
            created_at BIGINT NOT NULL,
            delivered_at BIGINT,
            attempts BIGINT NOT NULL DEFAULT 0,
            next_attempt_at BIGINT NOT NULL DEFAULT 0,
            claimed_until BIGINT NOT NULL DEFAULT 0
        )
        """,
        "CREATE INDEX hook_deliveries_due ON hook_deliveries (next_attempt_at, id) WHERE delivered_at IS NULL",
        """
        CREATE TABLE hook_attempts (
            id BIGSERIAL PRIMARY KEY,
            hook_id BIGINT NOT NULL,
            delivery_id BIGINT NOT NULL,
            attempt BIGINT NOT NULL,
            at BIGINT NOT NULL,
            status BIGINT,
            latency_ms BIGINT NOT NULL,
            error TEXT
        )
        """,
        "CREATE INDEX hook_attempts_by_hook ON hook_attempts (hook_id, id)",
        // Once per INSERT statement, not per row: a group of sends is one statement, and
        // the function's one join costs the group what a row trigger would cost each message.
        """
        CREATE FUNCTION hook_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO hook_deliveries (hook_id, event, message_id, created_at)
            SELECT h.id, 'message.created', n.id, n.sent_at FROM new_messages n
            JOIN hooks h ON h.conversation_id = n.conversation_id
            WHERE h.kind = 'outgoing' AND h.revoked_at IS NULL AND h.disabled_at IS NULL
            ORDER BY n.id, h.id;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER hook_enqueue AFTER INSERT ON messages REFERENCING NEW TABLE AS new_messages
        FOR EACH STATEMENT EXECUTE FUNCTION hook_enqueue()
        """,
    ]
}
