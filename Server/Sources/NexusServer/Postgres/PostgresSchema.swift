/// Schema migrations for PostgreSQL, applied in order at start-up; each runs once, in a
/// transaction that holds an advisory lock, so replicas starting together apply each
/// migration exactly once.
///
/// The tables mirror SQLite's (SQLite/SQLiteSchema.swift), with two differences:
/// message text is BYTEA, because PostgreSQL's TEXT cannot hold U+0000 and a message may;
/// and `events.id` has no default: it is taken from `events_id_seq` only while the feed
/// lock is held (see PostgresDatabase.appendEvents), which keeps sync cursors gap-safe.
enum PostgresSchema {
    /// pg_advisory_xact_lock keys.
    static let migrationLock: Int64 = 0x6E78_0001
    static let feedLock: Int64 = 0x6E78_0002

    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE users (
                id BIGSERIAL PRIMARY KEY,
                email TEXT NOT NULL,
                display_name TEXT NOT NULL,
                password_hash TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                last_seen_at BIGINT
            )
            """,
            "CREATE UNIQUE INDEX users_by_email ON users (lower(email))",
            """
            CREATE TABLE sessions (
                token_hash TEXT PRIMARY KEY,
                user_id BIGINT NOT NULL REFERENCES users(id),
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE conversations (
                id BIGSERIAL PRIMARY KEY,
                kind TEXT NOT NULL,
                name TEXT,
                direct_key TEXT UNIQUE,
                last_seq BIGINT NOT NULL DEFAULT 0,
                last_message_id BIGINT,
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE members (
                conversation_id BIGINT NOT NULL REFERENCES conversations(id),
                user_id BIGINT NOT NULL REFERENCES users(id),
                joined_at BIGINT NOT NULL,
                delivered_seq BIGINT NOT NULL DEFAULT 0,
                read_seq BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY (conversation_id, user_id)
            )
            """,
            "CREATE INDEX members_by_user ON members (user_id, conversation_id)",
            """
            CREATE TABLE messages (
                id BIGSERIAL PRIMARY KEY,
                conversation_id BIGINT NOT NULL REFERENCES conversations(id),
                seq BIGINT NOT NULL,
                sender_id BIGINT NOT NULL REFERENCES users(id),
                local_id TEXT NOT NULL,
                text BYTEA NOT NULL,
                sent_at BIGINT NOT NULL,
                UNIQUE (conversation_id, seq),
                UNIQUE (sender_id, local_id)
            )
            """,
            "CREATE SEQUENCE events_id_seq",
            """
            CREATE TABLE events (
                id BIGINT PRIMARY KEY,
                conversation_id BIGINT NOT NULL,
                type TEXT NOT NULL,
                ref_id BIGINT
            )
            """,
            "CREATE INDEX events_by_conversation ON events (conversation_id, id)",
            """
            CREATE TABLE receipts (
                id BIGSERIAL PRIMARY KEY,
                conversation_id BIGINT NOT NULL,
                user_id BIGINT NOT NULL,
                kind TEXT NOT NULL,
                seq BIGINT NOT NULL,
                at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX receipts_by_member ON receipts (conversation_id, user_id, kind, seq)",
        ],
        // Emails are stored in one normal form (NFC, lower-case; see IdentityRepair, which
        // brings older rows to it) and compared by plain equality, as on SQLite.
        [
            "DROP INDEX users_by_email",
            "CREATE UNIQUE INDEX users_by_email ON users (email)",
        ],
        // i17-attachments: a message's files (a JSON array, NULL when none), uploads, and
        // their bytes in rows of about 1 MiB, so every replica serves every blob.
        [
            "ALTER TABLE messages ADD COLUMN attachments TEXT",
            """
            CREATE TABLE uploads (
                user_id BIGINT NOT NULL REFERENCES users(id),
                sha256 TEXT NOT NULL,
                size BIGINT NOT NULL,
                received BIGINT NOT NULL,
                complete BOOLEAN NOT NULL,
                bytes_in BIGINT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (user_id, sha256)
            )
            """,
            """
            CREATE TABLE upload_chunks (
                user_id BIGINT NOT NULL,
                sha256 TEXT NOT NULL,
                at BIGINT NOT NULL,
                data BYTEA NOT NULL,
                PRIMARY KEY (user_id, sha256, at)
            )
            """,
            // Files are mostly compressed already: no TOAST compression to try on every row.
            "ALTER TABLE upload_chunks ALTER COLUMN data SET STORAGE EXTERNAL",
        ],
    ]
}
