import Logging
import NIOCore
import NexusCore
import PostgresNIO

/// The backend for several nexusd replicas: one PostgreSQL database, reached through
/// PostgresNIO's connection pool. Every replica is stateless apart from caches that
/// cannot go stale (conversation members never change) and what the cluster bus keeps
/// in step (feeds and typing; see PostgresRepository+Bus.swift).
///
/// Sync cursors are the ids of the `events` table. With concurrent writers a sequence
/// hands out ids in an order that commits need not follow, and a reader that saw id 12
/// could later miss id 11. So every transaction that appends events first takes one
/// advisory lock and only then draws the ids, and holds the lock until it has committed:
/// ids become visible in order, and nothing can appear below a cursor already served.
/// The lock is taken last, after each conversation's row lock, to keep its hold short.
final class PostgresRepository: Repository {
    let client: PostgresClient
    let logger: Logger
    /// Tells this replica's notes from the others' on the bus.
    let origin: String
    private let runner: Task<Void, Never>

    static func open(url: String, maxConnections: Int = 16, logger: Logger) async throws -> PostgresRepository {
        let parsed = try PostgresURL(url)
        let client = PostgresClient(configuration: parsed.clientConfiguration(maxConnections: maxConnections), backgroundLogger: logger)
        let repository = PostgresRepository(client: client, logger: logger)
        // Fail at start-up, with the database's own reason, rather than on the first request.
        do {
            _ = try await client.query("SELECT 1", logger: logger).collect()
        } catch {
            repository.runner.cancel()
            throw PostgresURL.Invalid(description: "can't reach PostgreSQL at \(PostgresURL.redacted(url)): \(String(reflecting: error))")
        }
        return repository
    }

    private init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
        self.origin = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        // Immediate, so the pool is running before the first query asks it for a connection.
        self.runner = Task.immediate { await client.run() }
    }

    func close() async throws {
        runner.cancel()
        _ = await runner.value
    }

    // MARK: Plumbing

    func rows(_ query: PostgresQuery) async throws -> [PostgresRandomAccessRow] {
        try await withinDeadline(Self.deadline) {
            try await self.client.query(query, logger: self.logger).collect().map { $0.makeRandomAccess() }
        }
    }

    /// How long a request waits for the database before it is answered 503: while the
    /// database is down the pool would otherwise hold requests until clients give up.
    static let deadline: Duration = .seconds(5)

    /// Runs `operation`, turning a database that cannot be reached, or does not answer
    /// within `deadline` (when there is one), into `DatabaseUnavailable`.
    private func withinDeadline<T: Sendable>(
        _ deadline: Duration?, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        do {
            guard let deadline else { return try await operation() }
            return try await withThrowingTaskGroup(of: T.self) { group in
                group.addTask { try await operation() }
                group.addTask {
                    try await Task.sleep(for: deadline)
                    throw DatabaseUnavailable()
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        } catch let error where Self.isUnavailable(error) {
            throw DatabaseUnavailable()
        }
    }

    /// A lost or refused connection, or a server shutting down (SQLSTATE classes 08 and 57).
    static func isUnavailable(_ error: any Error) -> Bool {
        if error is DatabaseUnavailable { return true }
        if let e = error as? PostgresTransactionError {
            return [e.beginError, e.closureError, e.commitError].contains { $0.map(isUnavailable) ?? false }
        }
        guard let e = error as? PSQLError else { return false }
        if [.connectionError, .serverClosedConnection, .uncleanShutdown, .poolClosed].contains(e.code) { return true }
        let state = e.serverInfo?[.sqlState] ?? ""
        return state.hasPrefix("08") || state.hasPrefix("57")
    }

    /// Runs `body` in a transaction, again when PostgreSQL gives up on it for a reason a
    /// second try resolves: a deadlock, a serialization failure, or a unique key that a
    /// concurrent transaction took first (the retry then finds that row).
    func transaction<T: Sendable>(
        deadline: Duration? = PostgresRepository.deadline, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await withinDeadline(deadline) {
                    try await self.client.withConnection { connection in
                        try await connection.withTransaction(logger: self.logger) { try await body($0) }
                    }
                }
            } catch {
                attempt += 1
                guard attempt < 8, let state = Self.sqlState(error), ["40001", "40P01", "23505"].contains(state) else { throw error }
                logger.debug("retrying a transaction after SQLSTATE \(state)")
            }
        }
    }

    static func sqlState(_ error: any Error) -> String? {
        if let e = error as? PostgresTransactionError { return (e.closureError ?? e.commitError).flatMap(sqlState) }
        return (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// Appends events to the feed with ids in commit order (see the type's comment), and
    /// tells the other replicas which feeds moved; PostgreSQL delivers the notes at commit.
    func appendEvents(_ events: [(conversationId: Int64, type: String, refId: Int64)], on c: PostgresConnection) async throws {
        guard !events.isEmpty else { return }
        var seen = Set<Int64>()
        let conversations = events.map(\.conversationId).filter { seen.insert($0).inserted }
        try await c.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.feedLock))", logger: logger)
        try await c.query(
            """
            INSERT INTO events (id, conversation_id, type, ref_id)
            SELECT nextval('events_id_seq'), v.conversation_id, v.type, v.ref_id
            FROM (SELECT * FROM unnest(\(events.map(\.conversationId))::bigint[], \(events.map(\.type))::text[],
                  \(events.map(\.refId))::bigint[]) WITH ORDINALITY AS u(conversation_id, type, ref_id, ord) ORDER BY ord) AS v
            """, logger: logger)
        for payload in ClusterNote.feedPayloads(origin: origin, conversationIds: conversations) {
            try await c.query("SELECT pg_notify('nexus', \(payload))", logger: logger)
        }
    }

    func migrate() async throws {
        // No deadline: a migration takes as long as it takes, and replicas wait their turn.
        let applied = try await transaction(deadline: nil) { [logger] c in
            try await c.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLock))", logger: logger)
            try await c.query(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)", logger: logger)
            let current = try await c.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", logger: logger)
                .collect().first?.decode(Int64.self) ?? 0
            var applied = 0
            for (index, statements) in PostgresSchema.migrations.enumerated() where index + 1 > current {
                for sql in statements { try await c.query(PostgresQuery(unsafeSQL: sql), logger: logger) }
                try await c.query(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (\(Int64(index + 1)), \(Timestamp.now().milliseconds))",
                    logger: logger)
                applied += 1
            }
            return applied
        }
        if applied > 0 { logger.info("applied \(applied) schema migration(s)") }
        try await repairIdentities().log(logger)
    }

    // MARK: Users and sessions

    func createUser(email: String, displayName: String, passwordHash: String) async throws -> User? {
        try await rows(
            """
            INSERT INTO users (email, display_name, password_hash, created_at)
            VALUES (\(email), \(displayName), \(passwordHash), \(Timestamp.now().milliseconds))
            ON CONFLICT (email) DO NOTHING RETURNING id, email, display_name, last_seen_at
            """
        ).first.map(Self.user)
    }

    func credentials(email: String) async throws -> Credentials? {
        try await rows("SELECT id, email, display_name, last_seen_at, password_hash FROM users WHERE email = \(email)")
            .first.map { Credentials(user: try Self.user($0), passwordHash: try $0["password_hash"].decode(String.self)) }
    }

    func user(email: String) async throws -> User? {
        try await rows("SELECT id, email, display_name, last_seen_at FROM users WHERE email = \(email)").first.map(Self.user)
    }

    func users(excluding viewer: Int64, search: String?) async throws -> [User] {
        guard let search, !search.isEmpty else {
            return try await rows(
                "SELECT id, email, display_name, last_seen_at FROM users WHERE id != \(viewer) ORDER BY lower(display_name), id LIMIT 1000"
            ).map(Self.user)
        }
        // No stored name can hold U+0000, and PostgreSQL refuses it in a pattern.
        if search.contains("\u{0}") { return [] }
        let pattern = "%" + escapeLikePattern(search) + "%"
        return try await rows(
            """
            SELECT id, email, display_name, last_seen_at FROM users
            WHERE id != \(viewer) AND (display_name ILIKE \(pattern) ESCAPE '\\' OR email ILIKE \(pattern) ESCAPE '\\')
            ORDER BY lower(display_name), id LIMIT 1000
            """
        ).map(Self.user)
    }

    func createSession(userId: Int64, tokenHash: String, expiresAt: Timestamp) async throws {
        _ = try await rows(
            """
            INSERT INTO sessions (token_hash, user_id, created_at, expires_at)
            VALUES (\(tokenHash), \(userId), \(Timestamp.now().milliseconds), \(expiresAt.milliseconds))
            """)
    }

    func session(tokenHash: String) async throws -> StoredSession? {
        try await rows(
            """
            SELECT u.id, u.email, u.display_name, u.last_seen_at, s.expires_at FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = \(tokenHash)
            """
        ).first.map { StoredSession(user: try Self.user($0), expiresAt: Timestamp(milliseconds: try $0["expires_at"].decode(Int64.self))) }
    }

    func deleteSession(tokenHash: String) async throws {
        _ = try await rows("DELETE FROM sessions WHERE token_hash = \(tokenHash)")
    }

    func saveLastSeen(_ times: [Int64: Timestamp]) async throws {
        guard !times.isEmpty else { return }
        let ids = Array(times.keys)
        _ = try await rows(
            """
            UPDATE users SET last_seen_at = GREATEST(COALESCE(users.last_seen_at, 0), v.at)
            FROM unnest(\(ids)::bigint[], \(ids.map { times[$0]!.milliseconds })::bigint[]) AS v(id, at) WHERE users.id = v.id
            """)
    }

    // MARK: Conversations

    func openDirect(_ a: Int64, _ b: Int64) async throws -> (id: Int64, created: Bool) {
        let key = "\(min(a, b)):\(max(a, b))"
        let now = Timestamp.now().milliseconds
        return try await transaction { [logger] c in
            // A racing create of the same pair waits here for the other to commit, then inserts nothing.
            let inserted = try await c.query(
                """
                INSERT INTO conversations (kind, direct_key, created_at, updated_at) VALUES ('direct', \(key), \(now), \(now))
                ON CONFLICT (direct_key) DO NOTHING RETURNING id
                """, logger: logger
            ).collect()
            if let id = try inserted.first?.decode(Int64.self) {
                try await self.addMembers(Array(Set([a, b])), to: id, at: now, on: c)
                try await self.appendEvents([(id, "conversation", id)], on: c)
                return (id, true)
            }
            let existing = try await c.query("SELECT id FROM conversations WHERE direct_key = \(key)", logger: logger).collect()
            guard let id = try existing.first?.decode(Int64.self) else { throw PostgresRepositoryError.inconsistent("direct \(key)") }
            return (id, false)
        }
    }

    func createGroup(creator: Int64, members: [Int64], name: String) async throws -> Int64 {
        let now = Timestamp.now().milliseconds
        return try await transaction { [logger] c in
            let inserted = try await c.query(
                "INSERT INTO conversations (kind, name, created_at, updated_at) VALUES ('group', \(name), \(now), \(now)) RETURNING id",
                logger: logger
            ).collect()
            guard let id = try inserted.first?.decode(Int64.self) else { throw PostgresRepositoryError.inconsistent("group") }
            try await self.addMembers([creator] + members, to: id, at: now, on: c)
            try await self.appendEvents([(id, "conversation", id)], on: c)
            return id
        }
    }

    private func addMembers(_ users: [Int64], to conversation: Int64, at now: Int64, on c: PostgresConnection) async throws {
        try await c.query(
            "INSERT INTO members (conversation_id, user_id, joined_at) SELECT \(conversation), u, \(now) FROM unnest(\(users)::bigint[]) AS u",
            logger: logger)
    }

    static let conversationColumns = """
        c.id, c.kind, c.name, c.last_seq, c.created_at, c.updated_at,
        (SELECT COUNT(*) FROM messages um WHERE um.conversation_id = c.id AND um.seq > me.read_seq AND um.sender_id != me.user_id) AS unread,
        m.id AS m_id, m.conversation_id AS m_conversation_id, m.seq AS m_seq, m.sender_id AS m_sender_id,
        m.local_id AS m_local_id, m.text AS m_text, m.sent_at AS m_sent_at
        """

    func conversation(id: Int64, viewer: Int64) async throws -> Conversation? {
        try await hydrate(rows(
            """
            SELECT \(unescaped: Self.conversationColumns) FROM conversations c
            JOIN members me ON me.conversation_id = c.id AND me.user_id = \(viewer)
            LEFT JOIN messages m ON m.id = c.last_message_id
            WHERE c.id = \(id)
            """)).first
    }

    /// Two queries whatever the count, as in SQLiteRepository.conversations.
    func conversations(viewer: Int64) async throws -> ConversationsResponse {
        let rows = try await rows(
            """
            SELECT \(unescaped: Self.conversationColumns),
                CASE WHEN m.sender_id = me.user_id THEN (SELECT COUNT(*) FROM members o WHERE o.conversation_id = c.id
                    AND o.user_id != me.user_id AND o.read_seq >= m.seq) END AS read_by,
                (SELECT array_agg(mb.user_id ORDER BY mb.user_id) FROM members mb WHERE mb.conversation_id = c.id) AS member_ids
            FROM members me
            JOIN conversations c ON c.id = me.conversation_id
            LEFT JOIN messages m ON m.id = c.last_message_id
            WHERE me.user_id = \(viewer)
            ORDER BY c.updated_at DESC, c.id DESC
            """)
        var everyone = Set<Int64>()
        let summaries = try rows.map { row in
            let memberIds = try row["member_ids"].decode([Int64]?.self) ?? []
            everyone.formUnion(memberIds)
            return ConversationSummary(
                id: try row["id"].decode(Int64.self),
                kind: ConversationKind(rawValue: try row["kind"].decode(String.self)) ?? .direct,
                name: try row["name"].decode(String?.self),
                memberIds: memberIds,
                lastSeq: try row["last_seq"].decode(Int64.self),
                lastMessage: try Self.lastMessage(row),
                createdAt: Timestamp(milliseconds: try row["created_at"].decode(Int64.self)),
                updatedAt: Timestamp(milliseconds: try row["updated_at"].decode(Int64.self)),
                unreadCount: Int(try row["unread"].decode(Int64.self)),
                lastMessageReadBy: try row["read_by"].decode(Int64?.self).map(Int.init))
        }
        let users = try await self.rows(
            "SELECT id, email, display_name, last_seen_at FROM users WHERE id = ANY(\(Array(everyone))::bigint[]) ORDER BY id"
        ).map(Self.user)
        return ConversationsResponse(conversations: summaries, users: users)
    }

    /// Conversations from rows of `conversationColumns`, with their members and receipts.
    private func hydrate(_ rows: [PostgresRandomAccessRow]) async throws -> [Conversation] {
        guard !rows.isEmpty else { return [] }
        let ids = try rows.map { try $0["id"].decode(Int64.self) }
        var members: [Int64: [User]] = [:]
        var receipts: [Int64: [MemberReceipts]] = [:]
        for row in try await self.rows(
            """
            SELECT mb.conversation_id, mb.delivered_seq, mb.read_seq, u.id, u.email, u.display_name, u.last_seen_at
            FROM members mb JOIN users u ON u.id = mb.user_id
            WHERE mb.conversation_id = ANY(\(ids)::bigint[]) ORDER BY mb.conversation_id, u.id
            """)
        {
            let conversationId = try row["conversation_id"].decode(Int64.self)
            let user = try Self.user(row)
            members[conversationId, default: []].append(user)
            receipts[conversationId, default: []].append(MemberReceipts(
                userId: user.id, deliveredSeq: try row["delivered_seq"].decode(Int64.self), readSeq: try row["read_seq"].decode(Int64.self)))
        }
        return try rows.map { row in
            let id = try row["id"].decode(Int64.self)
            return Conversation(
                id: id,
                kind: ConversationKind(rawValue: try row["kind"].decode(String.self)) ?? .direct,
                name: try row["name"].decode(String?.self),
                members: members[id] ?? [],
                lastSeq: try row["last_seq"].decode(Int64.self),
                lastMessage: try Self.lastMessage(row),
                createdAt: Timestamp(milliseconds: try row["created_at"].decode(Int64.self)),
                updatedAt: Timestamp(milliseconds: try row["updated_at"].decode(Int64.self)),
                unreadCount: Int(try row["unread"].decode(Int64.self)),
                receipts: receipts[id] ?? [])
        }
    }

    func memberIds(conversationId: Int64) async throws -> [Int64] {
        try await rows("SELECT user_id FROM members WHERE conversation_id = \(conversationId)").map { try $0["user_id"].decode(Int64.self) }
    }

    // MARK: Receipts and status

    func advanceReceipts(conversationId: Int64, userId: Int64, delivered: Int64?, read: Int64?) async throws -> [Receipt] {
        let now = Timestamp.now()
        return try await transaction { [logger] c in
            let current = try await c.query(
                """
                SELECT mb.delivered_seq, mb.read_seq, c.last_seq FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                WHERE mb.conversation_id = \(conversationId) AND mb.user_id = \(userId) FOR UPDATE OF mb
                """, logger: logger
            ).collect().first?.makeRandomAccess()
            guard let current else { return [] }
            let marks = AdvancedMarks(
                lastSeq: try current["last_seq"].decode(Int64.self), delivered: try current["delivered_seq"].decode(Int64.self),
                read: try current["read_seq"].decode(Int64.self), asked: (delivered, read), userId: userId, at: now)
            guard !marks.moved.isEmpty else { return [] }
            try await c.query(
                """
                UPDATE members SET delivered_seq = \(marks.delivered), read_seq = \(marks.read)
                WHERE conversation_id = \(conversationId) AND user_id = \(userId)
                """, logger: logger)
            var events: [(conversationId: Int64, type: String, refId: Int64)] = []
            for r in marks.moved {
                let id = try await c.query(
                    """
                    INSERT INTO receipts (conversation_id, user_id, kind, seq, at)
                    VALUES (\(conversationId), \(userId), \(r.kind.rawValue), \(r.seq), \(now.milliseconds)) RETURNING id
                    """, logger: logger
                ).collect().first?.decode(Int64.self) ?? 0
                events.append((conversationId, "receipt", id))
            }
            try await self.appendEvents(events, on: c)
            return marks.moved
        }
    }

    static let messageColumns = "m.id, m.conversation_id, m.seq, m.sender_id, m.local_id, m.text, m.sent_at"

    func message(id: Int64, viewer: Int64) async throws -> Message? {
        try await rows(
            """
            SELECT \(unescaped: Self.messageColumns) FROM messages m
            JOIN members me ON me.conversation_id = m.conversation_id AND me.user_id = \(viewer) WHERE m.id = \(id)
            """
        ).first.map { try Self.message($0) }
    }

    func message(localId: String, sender: Int64) async throws -> Message? {
        try await rows("SELECT \(unescaped: Self.messageColumns) FROM messages m WHERE m.sender_id = \(sender) AND m.local_id = \(localId)")
            .first.map { try Self.message($0) }
    }

    func status(of message: Message) async throws -> [MessageStatus.Member] {
        try await rows(
            """
            SELECT u.id, u.email, u.display_name, u.last_seen_at,
                (SELECT MIN(r.at) FROM receipts r WHERE r.conversation_id = mb.conversation_id AND r.user_id = mb.user_id
                    AND r.kind = 'delivered' AND r.seq >= \(message.seq)) AS delivered_at,
                (SELECT MIN(r.at) FROM receipts r WHERE r.conversation_id = mb.conversation_id AND r.user_id = mb.user_id
                    AND r.kind = 'read' AND r.seq >= \(message.seq)) AS read_at
            FROM members mb JOIN users u ON u.id = mb.user_id
            WHERE mb.conversation_id = \(message.conversationId) AND mb.user_id != \(message.senderId) ORDER BY u.id
            """
        ).map { row in
            MessageStatus.Member(
                user: try Self.user(row),
                deliveredAt: try row["delivered_at"].decode(Int64?.self).map(Timestamp.init(milliseconds:)),
                readAt: try row["read_at"].decode(Int64?.self).map(Timestamp.init(milliseconds:)))
        }
    }

    // MARK: History

    func seq(ofMessage id: Int64, conversationId: Int64) async throws -> Int64? {
        try await rows("SELECT seq FROM messages WHERE id = \(id) AND conversation_id = \(conversationId)").first?["seq"].decode(Int64.self)
    }

    func firstSeq(sentAtOrAfter time: Timestamp, conversationId: Int64) async throws -> Int64 {
        let last = try await rows("SELECT last_seq FROM conversations WHERE id = \(conversationId)").first?["last_seq"].decode(Int64.self) ?? 0
        return try await firstSeqBySearch(sentAtOrAfter: time, lastSeq: last) { seq in
            try await self.rows("SELECT sent_at FROM messages WHERE conversation_id = \(conversationId) AND seq = \(seq)")
                .first?["sent_at"].decode(Int64.self) ?? 0
        }
    }

    func messages(conversationId: Int64, before: Int64?, limit: Int) async throws -> MessagesPage {
        let rows = try await rows(
            """
            SELECT \(unescaped: Self.messageColumns) FROM messages m
            WHERE m.conversation_id = \(conversationId) AND m.seq < \(before ?? Int64.max) ORDER BY m.seq DESC LIMIT \(Int64(limit + 1))
            """)
        return MessagesPage(messages: try rows.prefix(limit).reversed().map { try Self.message($0) }, hasMore: rows.count > limit)
    }

    // MARK: Feed

    private static let eventColumns = """
        e.id AS e_id, e.conversation_id AS e_conversation_id, e.type AS e_type,
        m.id, m.conversation_id, m.seq, m.sender_id, m.local_id, m.text, m.sent_at,
        r.user_id AS r_user_id, r.kind AS r_kind, r.seq AS r_seq, r.at AS r_at
        """

    func events(viewer: Int64, after: Int64, conversationId: Int64?, limit: Int) async throws -> [SyncEvent] {
        try await makeEvents(rows(
            """
            SELECT \(unescaped: Self.eventColumns) FROM events e
            JOIN members me ON me.conversation_id = e.conversation_id AND me.user_id = \(viewer)
            LEFT JOIN messages m ON e.type = 'message' AND m.id = e.ref_id
            LEFT JOIN receipts r ON e.type = 'receipt' AND r.id = e.ref_id
            WHERE e.id > \(after) AND (\(conversationId)::bigint IS NULL OR e.conversation_id = \(conversationId))
            ORDER BY e.id LIMIT \(Int64(limit))
            """), viewer: viewer)
    }

    func lastMessageEvents(viewer: Int64, conversationId: Int64?, count: Int) async throws -> (events: [SyncEvent], head: Int64) {
        let head = try await rows(
            """
            SELECT COALESCE(MAX(e.id), 0) AS head FROM events e JOIN members me ON me.conversation_id = e.conversation_id
            WHERE me.user_id = \(viewer) AND (\(conversationId)::bigint IS NULL OR e.conversation_id = \(conversationId))
            """
        ).first?["head"].decode(Int64.self) ?? 0
        let rows = try await rows(
            """
            SELECT \(unescaped: Self.eventColumns) FROM events e
            JOIN members me ON me.conversation_id = e.conversation_id AND me.user_id = \(viewer)
            JOIN messages m ON m.id = e.ref_id
            LEFT JOIN receipts r ON false
            WHERE e.type = 'message' AND (\(conversationId)::bigint IS NULL OR e.conversation_id = \(conversationId)) AND e.id <= \(head)
            ORDER BY e.id DESC LIMIT \(Int64(count))
            """)
        return (try await makeEvents(rows.reversed(), viewer: viewer), head)
    }

    private func makeEvents(_ rows: [PostgresRandomAccessRow], viewer: Int64) async throws -> [SyncEvent] {
        var events: [SyncEvent] = []
        events.reserveCapacity(rows.count)
        for row in rows {
            let id = try row["e_id"].decode(Int64.self)
            let conversationId = try row["e_conversation_id"].decode(Int64.self)
            switch try row["e_type"].decode(String.self) {
            case "message":
                events.append(SyncEvent(id: id, type: .message, conversationId: conversationId, message: try Self.message(row)))
            case "receipt":
                let receipt = Receipt(
                    userId: try row["r_user_id"].decode(Int64.self),
                    kind: ReceiptKind(rawValue: try row["r_kind"].decode(String.self)) ?? .delivered,
                    seq: try row["r_seq"].decode(Int64.self),
                    at: Timestamp(milliseconds: try row["r_at"].decode(Int64.self)))
                events.append(SyncEvent(id: id, type: .receipt, conversationId: conversationId, receipt: receipt))
            default:
                let conversation = try await self.conversation(id: conversationId, viewer: viewer)
                events.append(SyncEvent(id: id, type: .conversation, conversationId: conversationId, conversation: conversation))
            }
        }
        return events
    }

    // MARK: Row mapping

    static func user(_ row: PostgresRandomAccessRow) throws -> User {
        User(
            id: try row["id"].decode(Int64.self),
            email: try row["email"].decode(String.self),
            displayName: try row["display_name"].decode(String.self),
            lastSeenAt: try row["last_seen_at"].decode(Int64?.self).map(Timestamp.init(milliseconds:)))
    }

    static func message(_ row: PostgresRandomAccessRow, prefix: String = "") throws -> Message {
        Message(
            id: try row[prefix + "id"].decode(Int64.self),
            conversationId: try row[prefix + "conversation_id"].decode(Int64.self),
            seq: try row[prefix + "seq"].decode(Int64.self),
            senderId: try row[prefix + "sender_id"].decode(Int64.self),
            localId: try row[prefix + "local_id"].decode(String.self),
            text: String(buffer: try row[prefix + "text"].decode(ByteBuffer.self)),
            sentAt: Timestamp(milliseconds: try row[prefix + "sent_at"].decode(Int64.self)))
    }

    private static func lastMessage(_ row: PostgresRandomAccessRow) throws -> Message? {
        try row["m_id"].decode(Int64?.self) == nil ? nil : try message(row, prefix: "m_")
    }
}

enum PostgresRepositoryError: Error {
    case inconsistent(String)
}
