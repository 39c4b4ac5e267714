import NIOCore
import NexusCore
import PostgresNIO

extension PostgresMessageStore {
    /// The batch path of `store(_:db:noteFirst:)` as ONE statement, run outside an explicit
    /// transaction, so PostgreSQL commits it as it ends: one round trip a group where
    /// BEGIN, the row locks, the resends, the note, the INSERT and COMMIT took six. The
    /// message_inserted trigger takes the feed lock at the INSERT's end, so the lock is now
    /// held for the commit's WAL flush alone, with no round trip to nexusd inside it.
    ///
    /// Same rules as the transaction it replaces: each conversation's row is locked in id
    /// order (FOR UPDATE, which reads the newest last_seq once a concurrent send has
    /// committed); a (sender, localId) already stored is answered with the original and
    /// takes no seq; the rest take the next seqs of their conversation in the group's
    /// order. A resend stored by a concurrent transaction after this statement's snapshot
    /// trips the unique key, and the retry below finds it. A message whose conversation
    /// has no row gets no seq, so the INSERT fails (NOT NULL) and nothing of the group is
    /// stored: the batcher then writes its messages one by one, and only that one fails.
    static func storeInOneStatement(_ messages: [NewMessage], db: PostgresDatabase) async throws -> [SendOutcome] {
        let batch = SendBatch(messages)
        let fresh = batch.fresh.map(\.message)
        guard !fresh.isEmpty else { return [] }
        let conversationIds = Array(Set(fresh.map(\.conversationId))).sorted()
        let notes = ClusterNote.feedPayloads(origin: db.origin, conversationIds: conversationIds)
        let texts = fresh.map { ByteBuffer(string: $0.text) }
        let replyTo = fresh.map { $0.replyTo ?? 0 }  // 0: none (NULLIF below)
        let attachments = fresh.map { AttachmentColumn.encode($0.attachments) ?? "" }
        // Sent times never go back within a conversation, even across replicas whose clocks differ.
        let now = Timestamp.now().milliseconds
        let query: PostgresQuery = """
            WITH k AS (
                SELECT * FROM unnest(\(fresh.map(\.conversationId))::bigint[], \(fresh.map(\.senderId))::bigint[],
                    \(fresh.map(\.localId))::text[], \(texts)::bytea[], \(replyTo)::bigint[], \(attachments)::text[])
                    WITH ORDINALITY AS k(c, f, l, t, r, x, ord)
            ), locked AS (
                SELECT id, last_seq, updated_at FROM conversations WHERE id = ANY(\(conversationIds)::bigint[]) ORDER BY id FOR UPDATE
            ), found AS (
                SELECT m.* FROM messages m JOIN k ON m.sender_id = k.f AND m.local_id = k.l
            ), fresh AS (
                SELECT k.c, locked.last_seq + row_number() OVER (PARTITION BY k.c ORDER BY k.ord) AS s, k.f, k.l, k.t,
                    GREATEST(\(now)::bigint, locked.updated_at) AS a, k.r, k.x, k.ord
                FROM k LEFT JOIN locked ON locked.id = k.c
                WHERE NOT EXISTS (SELECT 1 FROM found WHERE found.sender_id = k.f AND found.local_id = k.l)
            ), inserted AS (
                INSERT INTO messages (conversation_id, seq, sender_id, local_id, text, sent_at, reply_to, attachments)
                SELECT c, s, f, l, t, a, NULLIF(r, 0), NULLIF(x, '') FROM fresh ORDER BY ord
                RETURNING *
            ), noted AS (
                SELECT count(pg_notify(\(PostgresDatabase.channel), p)) AS n FROM unnest(\(notes)::text[]) AS p
            )
            SELECT true AS created, \(unescaped: messageColumns) FROM inserted m WHERE (SELECT n FROM noted) >= 0
            UNION ALL
            SELECT false, \(unescaped: messageColumns) FROM found m
            """
        // PostgreSQL delivers the notes at commit, with the events: a SELECT in WITH runs only
        // when read, hence the guard that reads it.
        var attempt = 0
        while true {
            do {
                var stored: [MessageKey: SendOutcome] = [:]
                for row in try await db.rows(query) {
                    let message = try Rows.message(row)
                    stored[MessageKey(message)] = try row["created"].decode(Bool.self) ? .created(message) : .duplicate(message)
                }
                return try batch.outcomes(stored)
            } catch {
                attempt += 1
                guard attempt < 8, let state = PostgresDatabase.sqlState(error), ["40001", "40P01", "23505"].contains(state) else { throw error }
                db.logger.debug("retrying a send after SQLSTATE \(state)")
            }
        }
    }
}
