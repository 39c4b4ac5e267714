import NIOCore
import NexusWire
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
    /// trips the unique key, and the retry below finds it. A message whose sender is not
    /// a member of its conversation (or which has none), new or resent, is left out and
    /// comes back `.notMember`: the send endpoint's members check, without a round trip.
    ///
    /// `genericPlan`: on the connection where the statement always runs on its generic
    /// plan, for the batcher's small groups. In `plan_cache_mode = auto` PostgreSQL planned
    /// it anew at every bind, since its generic plan's estimate (arrays of unknown length)
    /// stays above a small group's custom plan's: that planning took a quarter of
    /// PostgreSQL's CPU in the bench's single sends. A client's batch keeps a custom plan
    /// for its own arrays, on the pool, so that it need not queue behind the groups.
    static func storeInOneStatement(_ messages: [NewMessage], db: PostgresDatabase, genericPlan: Bool = false) async throws -> [SendOutcome] {
        let batch = SendBatch(messages)
        let fresh = batch.fresh.map(\.message)
        guard !fresh.isEmpty else { return [] }
        let conversationIds = Array(Set(fresh.map(\.conversationId))).sorted()
        let statement = SendGroup(
            conversationIds: fresh.map(\.conversationId), senderIds: fresh.map(\.senderId), localIds: fresh.map(\.localId),
            texts: fresh.map { ByteBuffer(string: $0.text) },
            replyTo: fresh.map { $0.replyTo ?? 0 },  // 0: none (NULLIF below)
            attachments: fresh.map { AttachmentColumn.encode($0.attachments) ?? "" },
            locking: conversationIds,
            // Sent times never go back within a conversation, even across replicas whose clocks differ.
            now: Timestamp.now().milliseconds,
            notes: ClusterNote.feedPayloads(origin: db.origin, conversationIds: conversationIds))
        var attempt = 0
        while true {
            do {
                var stored: [MessageKey: SendOutcome] = [:]
                for row in try await db.rows(statement, generic: genericPlan) {
                    let message = try Rows.message(row)
                    stored[MessageKey(message)] = try row["created"].decode(Bool.self) ? .created(message) : .duplicate(message)
                }
                return batch.outcomes(stored)
            } catch {
                attempt += 1
                guard attempt < 8, let state = PostgresDatabase.sqlState(error), ["40001", "40P01", "23505"].contains(state) else { throw error }
                db.logger.debug("retrying a send after SQLSTATE \(state)")
            }
        }
    }
}

/// The group's statement, prepared once on each connection: its text never changes (every
/// value is bound), and parsing, analysing and planning it anew for every group took about
/// a third of PostgreSQL's CPU in the bench's single sends.
///
/// A prepared statement may run on a generic plan, made without the arrays' values, which
/// guesses 10 rows for each. With a plain join, that plan looked for resends by scanning
/// all of `messages` (a hash join): sends ran at half the rate. Each resend is therefore
/// looked up on its own (LATERAL, LIMIT 1 keeps the subquery from being merged into a
/// join), through the (sender_id, local_id) key, whatever the plan. Each sender's
/// membership likewise: as an EXISTS, it was a hash join over all of `members`.
struct SendGroup: PostgresPreparedStatement {
    typealias Row = PostgresRandomAccessRow
    /// PostgresNIO's default name, `String(reflecting:)` of the type, is worked out anew at
    /// every execute: half a percent of a replica's CPU on single sends.
    static let name = "SendGroup"

    let conversationIds: [Int64], senderIds: [Int64], localIds: [String], texts: [ByteBuffer]
    let replyTo: [Int64], attachments: [String], locking: [Int64], now: Int64, notes: [String]

    // PostgreSQL delivers the notes at commit, with the events: a SELECT in WITH runs only
    // when read, hence the guard that reads it.
    static let sql = """
        WITH given AS (
            SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::bytea[], $5::bigint[], $6::text[])
                WITH ORDINALITY AS k(c, f, l, t, r, x, ord)
        ), k AS (
            SELECT * FROM given WHERE (SELECT true FROM members WHERE conversation_id = given.c AND user_id = given.f LIMIT 1)
        ), locked AS (
            SELECT id, last_seq, updated_at FROM conversations WHERE id = ANY($7::bigint[]) ORDER BY id FOR UPDATE
        ), found AS (
            SELECT m.* FROM k CROSS JOIN LATERAL (
                SELECT * FROM messages WHERE sender_id = k.f AND local_id = k.l LIMIT 1) m
        ), fresh AS (
            SELECT k.c, locked.last_seq + row_number() OVER (PARTITION BY k.c ORDER BY k.ord) AS s, k.f, k.l, k.t,
                GREATEST($8::bigint, locked.updated_at) AS a, k.r, k.x, k.ord
            FROM k LEFT JOIN locked ON locked.id = k.c
            WHERE NOT EXISTS (SELECT 1 FROM found WHERE found.sender_id = k.f AND found.local_id = k.l)
        ), inserted AS (
            INSERT INTO messages (conversation_id, seq, sender_id, local_id, text, sent_at, reply_to, attachments)
            SELECT c, s, f, l, t, a, NULLIF(r, 0), NULLIF(x, '') FROM fresh ORDER BY ord
            RETURNING *
        ), noted AS (
            SELECT count(pg_notify($9, p)) AS n FROM unnest($10::text[]) AS p
        )
        SELECT true AS created, \(messageColumns) FROM inserted m WHERE (SELECT n FROM noted) >= 0
        UNION ALL
        SELECT false, \(messageColumns) FROM found m
        """

    func makeBindings() throws -> PostgresBindings {
        var b = PostgresBindings(capacity: 10)
        b.append(conversationIds); b.append(senderIds); b.append(localIds); b.append(texts)
        b.append(replyTo); b.append(attachments); b.append(locking); b.append(now)
        b.append(PostgresDatabase.channel); b.append(notes)
        return b
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { row.makeRandomAccess() }
}
