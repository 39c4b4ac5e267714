/// Schema migrations, applied in order at start-up; each runs once, in a transaction.
enum SQLiteSchema {
    /// A send's feed event and its conversation's new head, in the INSERT's own statement.
    static let messageInserted = """
        CREATE TRIGGER message_inserted AFTER INSERT ON messages BEGIN
            INSERT INTO events (conversation_id, type, ref_id) VALUES (NEW.conversation_id, 'message', NEW.id);
            UPDATE conversations SET last_seq = NEW.seq, last_message_id = NEW.id, updated_at = NEW.sent_at
                WHERE id = NEW.conversation_id AND last_seq < NEW.seq;
        END
        """

    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE users (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                email TEXT NOT NULL UNIQUE COLLATE NOCASE,
                display_name TEXT NOT NULL,
                password_hash TEXT NOT NULL,
                created_at INTEGER NOT NULL
            )
            """,
            """
            CREATE TABLE sessions (
                token_hash TEXT PRIMARY KEY,
                user_id INTEGER NOT NULL REFERENCES users(id),
                created_at INTEGER NOT NULL
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE conversations (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                kind TEXT NOT NULL,
                name TEXT,
                direct_key TEXT UNIQUE,
                last_seq INTEGER NOT NULL DEFAULT 0,
                last_message_id INTEGER,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL
            )
            """,
            """
            CREATE TABLE members (
                conversation_id INTEGER NOT NULL REFERENCES conversations(id),
                user_id INTEGER NOT NULL REFERENCES users(id),
                joined_at INTEGER NOT NULL,
                PRIMARY KEY (conversation_id, user_id)
            ) WITHOUT ROWID
            """,
            "CREATE INDEX members_by_user ON members(user_id, conversation_id)",
            """
            CREATE TABLE messages (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                conversation_id INTEGER NOT NULL REFERENCES conversations(id),
                seq INTEGER NOT NULL,
                sender_id INTEGER NOT NULL REFERENCES users(id),
                local_id TEXT NOT NULL,
                text TEXT NOT NULL,
                sent_at INTEGER NOT NULL,
                UNIQUE (conversation_id, seq),
                UNIQUE (sender_id, local_id)
            )
            """,
            // The feed. Its ids are the sync cursor: one writer commits in id order, so a
            // reader that has seen id N can never later find a committed id below N.
            """
            CREATE TABLE events (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                conversation_id INTEGER NOT NULL,
                type TEXT NOT NULL,
                ref_id INTEGER
            )
            """,
            "CREATE INDEX events_by_conversation ON events(conversation_id, id)",
            messageInserted,
        ],
        // Groups, receipts and presence.
        [
            "ALTER TABLE users ADD COLUMN last_seen_at INTEGER",
            "ALTER TABLE members ADD COLUMN delivered_seq INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE members ADD COLUMN read_seq INTEGER NOT NULL DEFAULT 0",
            // Each time a watermark moves, so `status` can tell when a message was delivered
            // or read: the first row of the member at or past its seq.
            """
            CREATE TABLE receipts (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                conversation_id INTEGER NOT NULL,
                user_id INTEGER NOT NULL,
                kind TEXT NOT NULL,
                seq INTEGER NOT NULL,
                at INTEGER NOT NULL
            )
            """,
            "CREATE INDEX receipts_by_member ON receipts(conversation_id, user_id, kind, seq)",
        ],
        // Tokens expire. Tokens from before this migration get 30 days from their creation.
        [
            "ALTER TABLE sessions ADD COLUMN expires_at INTEGER",
            "UPDATE sessions SET expires_at = created_at + 2592000000",  // 30 days in ms
        ],
        // Moved a send's events and heads into Swift, as on PostgreSQL; migration 5 undoes
        // it (one statement a group commit is worth more than one home for both backends).
        [
            "DROP TRIGGER IF EXISTS message_inserted",
        ],
        // ...and back in the trigger: written from Swift, a send's group commit took five
        // trips to SQLite's thread (BEGIN, messages, events, heads, COMMIT) instead of one
        // self-committing INSERT, and nexusd spent ~1.5x the CPU per message (`make bench`,
        // 2026-11-23). On SQLite the trigger is the one home; PostgreSQL writes them in Swift.
        [
            messageInserted,
        ],
        // i17-attachments: a message's files (a JSON array, NULL when none), and uploads;
        // the bytes live in the blob folder beside the database (SQLiteAttachmentStore).
        [
            "ALTER TABLE messages ADD COLUMN attachments TEXT",
            """
            CREATE TABLE uploads (
                user_id INTEGER NOT NULL REFERENCES users(id),
                sha256 TEXT NOT NULL,
                size INTEGER NOT NULL,
                received INTEGER NOT NULL,
                complete INTEGER NOT NULL,
                bytes_in INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                PRIMARY KEY (user_id, sha256)
            )
            """,
        ],
    ]
}
