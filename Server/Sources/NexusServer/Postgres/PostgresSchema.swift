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
        // A send's feed events and its conversations' new heads, written by a trigger as on
        // SQLite (SQLiteSchema.messageInserted): one home for both backends. Statement-level,
        // so a group of messages takes the feed lock once, after the heads, as before.
        [
            messageInserted,
            """
            CREATE TRIGGER message_inserted AFTER INSERT ON messages REFERENCING NEW TABLE AS new_messages
                FOR EACH STATEMENT EXECUTE FUNCTION message_inserted()
            """,
        ],
        [
            // Bots (users with an owner and no password), access tokens, and an
            // index for deleting expired sessions. A bot whose owner_id is NULL was deleted.
            "ALTER TABLE users ADD COLUMN bot BOOLEAN NOT NULL DEFAULT false",
            "ALTER TABLE users ADD COLUMN owner_id BIGINT REFERENCES users(id)",
            "CREATE INDEX users_by_owner ON users (owner_id) WHERE owner_id IS NOT NULL",
            "CREATE INDEX sessions_by_expiry ON sessions (expires_at)",
            // conversations: the ids it is limited to, comma-separated; '' for all.
            // expires_at NULL: never.
            """
            CREATE TABLE access_tokens (
                token_hash TEXT PRIMARY KEY,
                user_id BIGINT NOT NULL REFERENCES users(id),
                name TEXT NOT NULL,
                scope TEXT NOT NULL,
                conversations TEXT NOT NULL DEFAULT '',
                created_at BIGINT NOT NULL,
                expires_at BIGINT,
                last_used_at BIGINT,
                UNIQUE (user_id, name)
            )
            """,
        ],
        // Webhooks' tables and the trigger that queues deliveries (Stores/Hooks/HookSchema.swift)
        HookSchema.postgres,
        [
            // The full-text index of message text for `search`: a generated
            // tsvector column (so it follows every UPDATE of the text: an edit is found by
            // its new words, a deleted message's emptied text by none) with a GIN index.
            // The `simple` configuration assumes no language; unaccent (postgresql-contrib)
            // removes diacritics; non-alphanumerics become spaces so that words are cut as
            // on SQLite (PostgreSQL's parser keeps e.g. "a@b.c" whole). The function is
            // declared IMMUTABLE, which a generated column needs and unaccent is not (its
            // dictionary could change), with its search_path pinned at creation.
            "CREATE EXTENSION IF NOT EXISTS unaccent",
            """
            CREATE FUNCTION nexus_search_vector(body BYTEA) RETURNS tsvector
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $$
                SELECT to_tsvector('simple'::regconfig,
                    regexp_replace(unaccent('unaccent'::regdictionary, convert_from(body, 'UTF8')), '[^[:alnum:]]+', ' ', 'g'))
            $$
            """,
            "ALTER TABLE messages ADD COLUMN search tsvector GENERATED ALWAYS AS (nexus_search_vector(text)) STORED",
            "CREATE INDEX messages_search ON messages USING GIN (search)",
        ],
        [
            // Replies, edits, deletes and reactions, as on SQLite (see SQLiteSchema).
            "ALTER TABLE messages ADD COLUMN reply_to BIGINT",
            "ALTER TABLE messages ADD COLUMN edited_at BIGINT",
            "ALTER TABLE messages ADD COLUMN deleted_at BIGINT",
            "ALTER TABLE messages ADD COLUMN reactions TEXT",
            """
            CREATE TABLE message_changes (
                id BIGSERIAL PRIMARY KEY,
                message_id BIGINT NOT NULL REFERENCES messages(id),
                user_id BIGINT NOT NULL REFERENCES users(id),
                local_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                emoji TEXT,
                at BIGINT NOT NULL,
                UNIQUE (user_id, local_id)
            )
            """,
        ],
        // A message's files (a JSON array, NULL when none), uploads, and
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
        [
            // Membership after creation. A membership event is a message whose
            // `membership` (JSON: kind, userIds, name) says what changed, so it takes a seq;
            // NULL for every other message.
            "ALTER TABLE messages ADD COLUMN membership TEXT",
        ],
        [
            // Leases of live clients (Stores/Presence), shared by the replicas.
            """
            CREATE TABLE presence_leases (
                user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                client TEXT NOT NULL,
                polling BOOLEAN NOT NULL,
                renewed_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                ended BOOLEAN NOT NULL,
                PRIMARY KEY (user_id, client)
            )
            """,
        ],
        [
            // The same search vector, in plpgsql. A SQL function with SET cannot be
            // inlined, and PostgreSQL parsed and planned its body again for every INSERT
            // or UPDATE of messages (30-45 µs a statement, an eighth of its CPU under
            // single sends); plpgsql keeps its plan for the session (15-20 µs). Same words
            // out (SearchVectorTests), so the vectors already stored stay valid.
            """
            CREATE OR REPLACE FUNCTION nexus_search_vector(body BYTEA) RETURNS tsvector
            LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $$
            BEGIN
                RETURN to_tsvector('simple'::regconfig,
                    regexp_replace(unaccent('unaccent'::regdictionary, convert_from(body, 'UTF8')), '[^[:alnum:]]+', ' ', 'g'));
            END
            $$
            """,
        ],
        [
            // The same function without its SET clause. Each call with SET saved and
            // restored search_path around the body (fmgr_security_definer): 30 µs of
            // PostgreSQL's CPU a group of four single sends, 7 % of their statement's. Every
            // name in the body now carries its schema, unaccent's looked up where the
            // extension is, so no search_path can change what it calls. Same words out.
            """
            DO $$
            DECLARE
                s text := (SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                           WHERE e.extname = 'unaccent');
            BEGIN
                EXECUTE format($f$
                    CREATE OR REPLACE FUNCTION nexus_search_vector(body BYTEA) RETURNS tsvector
                    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $b$
                    BEGIN
                        RETURN pg_catalog.to_tsvector('pg_catalog.simple'::pg_catalog.regconfig, pg_catalog.regexp_replace(
                            %1$s.unaccent(%2$L::pg_catalog.regdictionary, pg_catalog.convert_from(body, 'UTF8')),
                            '[^[:alnum:]]+', ' ', 'g'));
                    END
                    $b$
                $f$, s, s || '.unaccent');
            END
            $$
            """,
        ],
        // Outgoing hooks choose their events; edits, deletes, reactions and membership are delivered (HookEvents.swift)
        HookSchema.eventsPostgres,
        [
            // The account's picture: an upload of its own, which the cleanup of unreferenced
            // uploads keeps while it is named here (BlobReference).
            """
            CREATE TABLE user_pictures (
                user_id BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                sha256 TEXT NOT NULL,
                size BIGINT NOT NULL,
                type TEXT NOT NULL,
                name TEXT NOT NULL,
                set_at BIGINT NOT NULL
            )
            """,
        ],
        // Mutes, on the member rows (MuteStore).
        MuteRows.postgres,
    ]

    /// Events in (conversation, seq) order, with ids drawn only under the feed lock (see
    /// the type's comment).
    static let messageInserted = """
        CREATE FUNCTION message_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE conversations c SET last_seq = v.seq, last_message_id = v.id, updated_at = v.sent_at
                FROM (SELECT DISTINCT ON (conversation_id) conversation_id, seq, id, sent_at FROM new_messages
                      ORDER BY conversation_id, seq DESC) AS v
                WHERE c.id = v.conversation_id AND c.last_seq < v.seq;
            PERFORM pg_advisory_xact_lock(\(feedLock));
            INSERT INTO events (id, conversation_id, type, ref_id)
                SELECT nextval('events_id_seq'), v.conversation_id, 'message', v.id
                FROM (SELECT conversation_id, id FROM new_messages ORDER BY conversation_id, seq) AS v;
            RETURN NULL;
        END
        $$
        """
}
