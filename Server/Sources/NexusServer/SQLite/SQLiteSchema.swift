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
        // 2026-11-23). The trigger is their one home, on PostgreSQL too (PostgresSchema).
        [
            messageInserted,
        ],
        [
            // Bots (users with an owner and no password), access tokens, and an
            // index for deleting expired sessions. A bot whose owner_id is NULL was deleted.
            "ALTER TABLE users ADD COLUMN bot INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE users ADD COLUMN owner_id INTEGER REFERENCES users(id)",
            "CREATE INDEX users_by_owner ON users(owner_id) WHERE owner_id IS NOT NULL",
            "CREATE INDEX sessions_by_expiry ON sessions(expires_at)",
            // conversations: the ids it is limited to, comma-separated; '' for all.
            // expires_at NULL: never.
            """
            CREATE TABLE access_tokens (
                token_hash TEXT PRIMARY KEY,
                user_id INTEGER NOT NULL REFERENCES users(id),
                name TEXT NOT NULL,
                scope TEXT NOT NULL,
                conversations TEXT NOT NULL DEFAULT '',
                created_at INTEGER NOT NULL,
                expires_at INTEGER,
                last_used_at INTEGER,
                UNIQUE (user_id, name)
            ) WITHOUT ROWID
            """,
        ],
        // Webhooks' tables and the trigger that queues deliveries (Stores/Hooks/HookSchema.swift)
        HookSchema.sqlite,
        [
            // The full-text index of message text for `search`. External content
            // (the text is stored once, in messages), kept by triggers on INSERT, UPDATE and
            // DELETE, so an edited message is found by its new words and a deleted one
            // (text emptied) never again. unicode61 folds case; remove_diacritics 2 makes
            // "cafe" find "café". What an existing database holds is indexed later (search_pending).
            """
            CREATE VIRTUAL TABLE messages_fts USING fts5(
                text, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2')
            """,
            """
            CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
                INSERT INTO messages_fts(rowid, text) VALUES (NEW.id, NEW.text);
            END
            """,
            """
            CREATE TRIGGER messages_fts_update AFTER UPDATE OF text ON messages BEGIN
                INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', OLD.id, OLD.text);
                INSERT INTO messages_fts(rowid, text) VALUES (NEW.id, NEW.text);
            END
            """,
            """
            CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
                INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', OLD.id, OLD.text);
            END
            """,
        ],
        [
            // Replies, edits, deletes and reactions. A delete empties `text` and
            // sets `deleted_at` (a tombstone keeps the seq); `reactions` is the message's
            // reactions as JSON, read with the row; `message_changes` makes each change
            // idempotent per (user, localId) and is what the feed's 'change' events name.
            // It holds no text, so a delete leaves none behind.
            "ALTER TABLE messages ADD COLUMN reply_to INTEGER",
            "ALTER TABLE messages ADD COLUMN edited_at INTEGER",
            "ALTER TABLE messages ADD COLUMN deleted_at INTEGER",
            "ALTER TABLE messages ADD COLUMN reactions TEXT",
            """
            CREATE TABLE message_changes (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                message_id INTEGER NOT NULL REFERENCES messages(id),
                user_id INTEGER NOT NULL REFERENCES users(id),
                local_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                emoji TEXT,
                at INTEGER NOT NULL,
                UNIQUE (user_id, local_id)
            )
            """,
        ],
        // A message's files (a JSON array, NULL when none), and uploads;
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
        [
            // Membership after creation. A membership event is a message whose
            // `membership` (JSON: kind, userIds, name) says what changed, so it takes a seq;
            // NULL for every other message.
            "ALTER TABLE messages ADD COLUMN membership TEXT",
        ],
        [
            // The search index lags the commit. A send's trigger only queues the
            // message's id in search_pending (one small B-tree insert), and SearchIndexService
            // moves queued messages into messages_fts in large transactions: FTS5 writes a
            // segment a transaction, which cost single sends 10-25 % when every group commit
            // did it. Search reads the index plus the queued rows (SQLiteSearchStore). An edit
            // or delete of a queued message needs nothing in the index: the indexer reads the
            // text as it is then.
            "CREATE TABLE search_pending (id INTEGER PRIMARY KEY)",
            // What the database already holds is queued too, so a large one is indexed while
            // nexusd serves, with progress in the log, not in a start-up that blocks.
            "INSERT INTO search_pending(id) SELECT id FROM messages",
            "DROP TRIGGER messages_fts_insert",
            "DROP TRIGGER messages_fts_update",
            "DROP TRIGGER messages_fts_delete",
            """
            CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
                INSERT INTO search_pending(id) VALUES (NEW.id);
            END
            """,
            """
            CREATE TRIGGER messages_fts_update AFTER UPDATE OF text ON messages
            WHEN NOT EXISTS (SELECT 1 FROM search_pending WHERE id = OLD.id) BEGIN
                INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', OLD.id, OLD.text);
                INSERT INTO messages_fts(rowid, text) VALUES (NEW.id, NEW.text);
            END
            """,
            """
            CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
                INSERT INTO messages_fts(messages_fts, rowid, text)
                    SELECT 'delete', OLD.id, OLD.text WHERE NOT EXISTS (SELECT 1 FROM search_pending WHERE id = OLD.id);
                DELETE FROM search_pending WHERE id = OLD.id;
            END
            """,
        ],
        [
            // The queue becomes a mark. Message ids grow in commit order (one
            // writer, AUTOINCREMENT), and the indexer took the queue oldest first, so what
            // waited was always every message after some id. `search_indexed.up_to` says which:
            // a send no longer runs a trigger, and the indexer reads `messages` as one range
            // instead of seeking each queued id (4.2 -> 1.1 us of SQLite's time a message,
            // SQLite 3.40 driven from Python, docs/benchmarks.md). The index is made anew with
            // `columnsize=0` (no per-message row of token counts, which only BM25 ranking
            // reads; search ranks by the message's own text): 1.1 -> 0.5 us. So every message
            // is indexed again after this migration, in the background, with progress in the
            // log (SearchIndexService).
            "DROP TRIGGER messages_fts_insert",
            "DROP TRIGGER messages_fts_update",
            "DROP TRIGGER messages_fts_delete",
            "DROP TABLE search_pending",
            "DROP TABLE messages_fts",
            """
            CREATE VIRTUAL TABLE messages_fts USING fts5(
                text, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2', columnsize=0)
            """,
            "CREATE TABLE search_indexed (up_to INTEGER NOT NULL)",
            "INSERT INTO search_indexed (up_to) VALUES (0)",
            // A message after the mark is read from `messages` when indexed: nothing to do.
            """
            CREATE TRIGGER messages_fts_update AFTER UPDATE OF text ON messages
            WHEN OLD.id <= (SELECT up_to FROM search_indexed) BEGIN
                INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', OLD.id, OLD.text);
                INSERT INTO messages_fts(rowid, text) VALUES (NEW.id, NEW.text);
            END
            """,
            """
            CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
            WHEN OLD.id <= (SELECT up_to FROM search_indexed) BEGIN
                INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', OLD.id, OLD.text);
            END
            """,
        ],
        [
            // A delete or an edit keeps no copy of the old text (docs/protocol.md). FTS5's
            // 'delete' only adds a tombstone beside the words, which stay in the index until
            // a merge happens to rewrite their segment; with secure-delete (SQLite 3.42) the
            // entry is taken out of its segment at once. 'optimize' merges what earlier deletes
            // left into one segment without them. Pages freed on the way are zeroed by
            // `PRAGMA secure_delete` (SQLiteDatabase). Once it has deleted so, FTS5 before 3.42
            // (Debian 12's sqlite3 shell) can't read this table; nexusd's own SQLite is newer.
            "INSERT INTO messages_fts(messages_fts, rank) VALUES ('secure-delete', 1)",
            "INSERT INTO messages_fts(messages_fts) VALUES ('optimize')",
        ],
        // Outgoing hooks choose their events; edits, deletes, reactions and membership are delivered (HookEvents.swift)
        HookSchema.eventsSQLite,
        [
            // The account's picture: an upload of its own, which the cleanup of unreferenced
            // uploads keeps while it is named here (BlobReference).
            """
            CREATE TABLE user_pictures (
                user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                sha256 TEXT NOT NULL,
                size INTEGER NOT NULL,
                type TEXT NOT NULL,
                name TEXT NOT NULL,
                set_at INTEGER NOT NULL
            )
            """,
        ],
        // Mutes, on the member rows (MuteStore).
        MuteRows.sqlite,
    ]
}
