import NIOCore
import NexusCore
import PostgresNIO

struct PostgresMessageStore: MessageStore {
    let db: PostgresDatabase
    /// Gathers concurrent single sends into one statement (PostgresSendBatcher,
    /// PostgresSendStatement.swift); nil only for `--bench-baseline`, which sends the way
    /// nexusd did before, a transaction a send, for the bench to compare.
    private let batcher: PostgresSendBatcher?

    init(db: PostgresDatabase, groupSends: Bool = true) {
        self.db = db
        self.batcher = groupSends ? PostgresSendBatcher { [db] messages in try await Self.storeInOneStatement(messages, db: db, genericPlan: true) } : nil
    }

    func send(_ messages: [NewMessage]) async throws -> [SendOutcome] {
        guard let batcher else { return try await Self.store(messages, db: db) }
        guard messages.count == 1 else { return try await Self.storeInOneStatement(messages, db: db) }
        return [try await batcher.send(messages[0])]
    }

    /// `--bench-baseline` only (the send path without group commit): stores a group of messages in one
    /// transaction of seven round trips, the feed lock held across the COMMIT's. Each
    /// conversation's row is locked (in id order, so two batches cannot deadlock), resends
    /// are found and answered with the original, messages from non-members are left
    /// out, and the rest take the next seqs: a resend never takes a seq, and
    /// seqs have no gaps. The same localId racing into two conversations trips the unique
    /// key, and the retry (see `transaction`) finds the winner.
    static func store(_ messages: [NewMessage], db: PostgresDatabase) async throws -> [SendOutcome] {
        let batch = SendBatch(messages)
        let fresh = batch.fresh.map(\.message)
        guard !fresh.isEmpty else { return [] }
        let stored = try await db.transaction { [db] c -> [MessageKey: SendOutcome] in
            let logger = db.logger
            let conversationIds = Array(Set(fresh.map(\.conversationId))).sorted()
            var last: [Int64: (seq: Int64, at: Int64)] = [:]
            for row in try await c.query(
                "SELECT id, last_seq, updated_at FROM conversations WHERE id = ANY(\(conversationIds)::bigint[]) ORDER BY id FOR UPDATE",
                logger: logger
            ).collect() {
                let (id, seq, at) = try row.decode((Int64, Int64, Int64).self)
                last[id] = (seq, at)
            }

            var members: [Int64: Set<Int64>] = [:]
            for row in try await c.query(
                "SELECT conversation_id, user_id FROM members WHERE conversation_id = ANY(\(conversationIds)::bigint[]) AND user_id = ANY(\(fresh.map(\.senderId))::bigint[])",
                logger: logger
            ).collect() {
                let (conversation, user) = try row.decode((Int64, Int64).self)
                members[conversation, default: []].insert(user)
            }
            let allowed = fresh.filter { members[$0.conversationId]?.contains($0.senderId) == true }

            var stored: [MessageKey: SendOutcome] = [:]
            for row in try await c.query(
                """
                SELECT \(unescaped: messageColumns) FROM messages m
                JOIN unnest(\(allowed.map(\.senderId))::bigint[], \(allowed.map(\.localId))::text[]) AS k(sender_id, local_id)
                    ON m.sender_id = k.sender_id AND m.local_id = k.local_id
                """, logger: logger
            ).collect() {
                let message = try Rows.message(row.makeRandomAccess())
                stored[MessageKey(message)] = .duplicate(message)
            }

            // Sent times never go back within a conversation, even across replicas whose clocks differ.
            let now = Timestamp.now().milliseconds
            var rows = (
                conversation: [Int64](), seq: [Int64](), sender: [Int64](), localId: [String](), text: [ByteBuffer](), at: [Int64](),
                replyTo: [Int64](), attachments: [String]())
            for m in allowed where stored[MessageKey(m)] == nil {
                guard let previous = last[m.conversationId] else { throw StoreError.inconsistent("conversation \(m.conversationId)") }
                let next = (seq: previous.seq + 1, at: max(now, previous.at))
                last[m.conversationId] = next
                rows.conversation.append(m.conversationId)
                rows.seq.append(next.seq)
                rows.sender.append(m.senderId)
                rows.localId.append(m.localId)
                rows.text.append(ByteBuffer(string: m.text))
                rows.at.append(next.at)
                rows.replyTo.append(m.replyTo ?? 0)  // 0: none (NULLIF below)
                rows.attachments.append(AttachmentColumn.encode(m.attachments) ?? "")
            }
            guard !rows.seq.isEmpty else { return stored }

            var created: [Message] = []
            for row in try await c.query(
                """
                INSERT INTO messages (conversation_id, seq, sender_id, local_id, text, sent_at, reply_to, attachments)
                SELECT u.c, u.s, u.f, u.l, u.t, u.a, NULLIF(u.r, 0), NULLIF(u.x, '') FROM unnest(\(rows.conversation)::bigint[], \(rows.seq)::bigint[],
                    \(rows.sender)::bigint[], \(rows.localId)::text[], \(rows.text)::bytea[], \(rows.at)::bigint[],
                    \(rows.replyTo)::bigint[], \(rows.attachments)::text[]) AS u(c, s, f, l, t, a, r, x)
                RETURNING id, conversation_id, seq, sender_id, local_id, text, sent_at, reply_to, edited_at, deleted_at, reactions, attachments
                """, logger: logger
            ).collect() {
                let message = try Rows.message(row.makeRandomAccess())
                created.append(message)
                stored[MessageKey(message)] = .created(message)
            }
            // The message_inserted trigger wrote the events and heads (PostgresSchema).
            try await db.notifyFeedsMoved(created.map(\.conversationId), on: c)
            return stored
        }
        return batch.outcomes(stored)
    }

    func seq(ofMessage id: Int64, conversationId: Int64) async throws -> Int64? {
        try await db.rows("SELECT seq FROM messages WHERE id = \(id) AND conversation_id = \(conversationId)").first?["seq"].decode(Int64.self)
    }

    func firstSeq(sentAtOrAfter time: Timestamp, conversationId: Int64) async throws -> Int64 {
        let last = try await db.rows("SELECT last_seq FROM conversations WHERE id = \(conversationId)").first?["last_seq"].decode(Int64.self) ?? 0
        return try await firstSeqBySearch(sentAtOrAfter: time, lastSeq: last) { seq in
            try await db.rows("SELECT sent_at FROM messages WHERE conversation_id = \(conversationId) AND seq = \(seq)")
                .first?["sent_at"].decode(Int64.self) ?? 0
        }
    }

    func messages(conversationId: Int64, before: Int64?, limit: Int) async throws -> MessagesPage {
        let rows = try await db.rows(
            """
            SELECT \(unescaped: messageColumns) FROM messages m
            WHERE m.conversation_id = \(conversationId) AND m.seq < \(before ?? Int64.max) ORDER BY m.seq DESC LIMIT \(Int64(limit + 1))
            """)
        return MessagesPage(messages: try rows.prefix(limit).reversed().map { try Rows.message($0) }, hasMore: rows.count > limit)
    }

    func message(id: Int64, viewer: Int64) async throws -> Message? {
        try await db.rows(
            """
            SELECT \(unescaped: messageColumns) FROM messages m
            JOIN members me ON me.conversation_id = m.conversation_id AND me.user_id = \(viewer) WHERE m.id = \(id)
            """
        ).first.map { try Rows.message($0) }
    }

    func message(localId: String, sender: Int64) async throws -> Message? {
        try await db.rows("SELECT \(unescaped: messageColumns) FROM messages m WHERE m.sender_id = \(sender) AND m.local_id = \(localId)")
            .first.map { try Rows.message($0) }
    }
}
