import Logging
import NIOCore
import NexusWire
import PostgresNIO

/// The backend for several nexusd replicas: one PostgreSQL database, reached through
/// PostgresNIO's connection pool. Every replica is stateless apart from caches that
/// cannot go stale (conversation members never change) and what the cluster bus keeps
/// in step (feeds and typing; see PostgresDatabase+Bus.swift).
///
/// Sync cursors are the ids of the `events` table. With concurrent writers a sequence
/// hands out ids in an order that commits need not follow, and a reader that saw id 12
/// could later miss id 11. So every transaction that appends events first takes one
/// advisory lock and only then draws the ids, and holds the lock until it has committed:
/// ids become visible in order, and nothing can appear below a cursor already served.
/// The lock is taken last, after each conversation's row lock, to keep its hold short.
final class PostgresDatabase: Database {
    /// The pool on the primary: the one host, or whichever of several is writable now.
    let primary: PostgresPrimary
    let logger: Logger
    /// Tells this replica's notes from the others' on the bus.
    let origin: String

    static func open(
        url: String, maxConnections: Int = 16, keepAlive: Duration = PostgresPrimary.keepAlive, logger: Logger
    ) async throws -> PostgresDatabase {
        let parsed = try PostgresURL(url)
        let primary = try PostgresPrimary(url: parsed, maxConnections: maxConnections, keepAlive: keepAlive, logger: logger)
        let database = PostgresDatabase(primary: primary, logger: logger)
        // Fail at start-up, with the database's own reason, rather than on the first request.
        // Several hosts: a failover may be under way, so give it the time one takes.
        do {
            let pool = try await primary.pool(waiting: primary.followsPrimary ? .seconds(30) : .zero)
            _ = try await pool.client.query("SELECT 1", logger: logger).collect()
        } catch {
            await primary.close()
            let reason = error is DatabaseUnavailable ? "none of its hosts is a writable primary" : String(reflecting: error)
            throw PostgresURL.Invalid(description: "can't reach PostgreSQL at \(PostgresURL.redacted(url)): \(reason)")
        }
        return database
    }

    /// The stores of the PostgreSQL database at `url`, with the database as the cluster bus.
    static func stores(url: String, logger: Logger) async throws -> Stores {
        let db = try await open(url: url, logger: logger)
        let conversations = PostgresConversationStore(db: db)
        return Stores(
            database: db, users: PostgresUserStore(db: db), conversations: conversations, messages: PostgresMessageStore(db: db),
            changes: PostgresMessageChangeStore(db: db),
            receipts: PostgresReceiptStore(db: db), feed: PostgresFeedStore(db: db, conversations: conversations),
            tokens: PostgresTokenStore(db: db), hooks: PostgresHookStore(db: db), search: PostgresSearchStore(db: db), attachments: PostgresAttachmentStore(db: db),
            mutes: PostgresMuteStore(db: db), presence: PostgresPresenceStore(db: db), bus: db)
    }

    private init(primary: PostgresPrimary, logger: Logger) {
        self.primary = primary
        self.logger = logger
        self.origin = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    func close() async throws {
        await primary.close()
    }

    // MARK: Plumbing

    func rows(_ query: PostgresQuery) async throws -> [PostgresRandomAccessRow] {
        try await withinDeadline(Self.deadline) { pool in
            try await pool.client.query(query, logger: self.logger).collect().map { $0.makeRandomAccess() }
        }
    }

    /// As `rows(_:)`, for a statement each connection prepares once; `generic`: on the
    /// send batcher's connection, where it always runs on its generic plan (SendsConnection).
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement, generic: Bool = false) async throws -> [PostgresRandomAccessRow]
    where Statement.Row == PostgresRandomAccessRow {
        try await withinDeadline(Self.deadline) { pool in
            @Sendable func run(_ c: PostgresConnection) async throws -> [PostgresRandomAccessRow] {
                var rows: [PostgresRandomAccessRow] = []
                for try await row in try await c.execute(statement, logger: self.logger) { rows.append(row) }
                return rows
            }
            if generic {
                pool.usedSends()
                return try await pool.sends.withConnection(run)
            }
            // The lease ends with this closure. Left to the rows' end (PostgresClient.execute),
            // the pool's connection was now and then never handed out again after a group had
            // failed on a concurrent resend (23505), and every later group waited out its
            // deadline (ReplicaTests.theSameLocalIdSentToBothReplicasAtOnceMakesOneMessage).
            return try await pool.client.withConnection(run)
        }
    }

    /// How long a request waits for the database before it is answered 503: while the
    /// database is down the pool would otherwise hold requests until clients give up.
    static let deadline: Duration = .seconds(5)

    /// Runs `operation` on the primary's pool, turning a database that cannot be reached,
    /// refuses writes (a standby), or does not answer within `deadline` (when there is one)
    /// into `DatabaseUnavailable`; with several hosts, that pool's host is then given up
    /// for whichever is the primary now (PostgresPrimary), and every call still on it fails.
    private func withinDeadline<T: Sendable>(
        _ deadline: Duration?, _ operation: @escaping @Sendable (PostgresPrimary.Pool) async throws -> T
    ) async throws -> T {
        let pool = try await primary.pool()
        do {
            return try await primary.calls.run(on: pool, within: deadline) { try await operation(pool) }
        } catch let error where Self.isUnavailable(error) {
            primary.lost(pool)
            throw DatabaseUnavailable()
        } catch let error where Self.sqlState(error) == "53100" {
            throw DatabaseUnavailable(reason: .storageFull)  // disk_full
        }
    }

    /// A lost or refused connection, a server shutting down (SQLSTATE classes 08 and 57),
    /// or a write refused by a standby (25006: after a failover, the old primary's host).
    static func isUnavailable(_ error: any Error) -> Bool {
        if error is DatabaseUnavailable { return true }
        if let e = error as? PostgresTransactionError {
            return [e.beginError, e.closureError, e.commitError].contains { $0.map(isUnavailable) ?? false }
        }
        guard let e = error as? PSQLError else { return false }
        // A query sent on a connection the server is terminating (57P01) fails as the
        // client closing it, with the server's reason underneath.
        if let underlying = e.underlying, isUnavailable(underlying) { return true }
        if e.serverInfo?[.sqlState] == "25006" { return true }
        if [.connectionError, .serverClosedConnection, .uncleanShutdown, .poolClosed].contains(e.code) { return true }
        let state = e.serverInfo?[.sqlState] ?? ""
        return state.hasPrefix("08") || state.hasPrefix("57")
    }

    /// Runs `body` in a transaction, again when PostgreSQL gives up on it for a reason a
    /// second try resolves: a deadlock, a serialization failure, or a unique key that a
    /// concurrent transaction took first (the retry then finds that row).
    func transaction<T: Sendable>(
        deadline: Duration? = PostgresDatabase.deadline, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await withinDeadline(deadline) { pool in
                    try await pool.client.withConnection { connection in
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
    /// tells the other replicas. A send's events are the message_inserted trigger's.
    func appendEvents(_ events: [(conversationId: Int64, type: String, refId: Int64)], on c: PostgresConnection) async throws {
        guard !events.isEmpty else { return }
        try await c.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.feedLock))", logger: logger)
        try await c.query(
            """
            INSERT INTO events (id, conversation_id, type, ref_id)
            SELECT nextval('events_id_seq'), v.conversation_id, v.type, v.ref_id
            FROM (SELECT * FROM unnest(\(events.map(\.conversationId))::bigint[], \(events.map(\.type))::text[],
                  \(events.map(\.refId))::bigint[]) WITH ORDINALITY AS u(conversation_id, type, ref_id, ord) ORDER BY ord) AS v
            """, logger: logger)
        try await notifyFeedsMoved(events.map(\.conversationId), on: c)
    }

    /// Tells the other replicas which feeds moved; PostgreSQL delivers the notes at commit.
    func notifyFeedsMoved(_ conversationIds: [Int64], on c: PostgresConnection) async throws {
        var seen = Set<Int64>()
        let conversations = conversationIds.filter { seen.insert($0).inserted }
        for payload in ClusterNote.feedPayloads(origin: origin, conversationIds: conversations) {
            try await c.query("SELECT pg_notify(\(Self.channel), \(payload))", logger: logger)
        }
    }

    /// Tells the other replicas that these tokens no longer work, so their session caches
    /// drop them; PostgreSQL delivers the notes at commit.
    func notifyRevoked(_ tokenHashes: [String], on c: PostgresConnection) async throws {
        for payload in ClusterNote.revokedPayloads(origin: origin, tokenHashes: tokenHashes) {
            try await c.query("SELECT pg_notify(\(Self.channel), \(payload))", logger: logger)
        }
    }

    /// Tells the other replicas to wake these users' polls; PostgreSQL delivers the notes
    /// at commit.
    func notifyWake(_ users: [Int64], on c: PostgresConnection) async throws {
        for payload in ClusterNote.wakePayloads(origin: origin, users: users) {
            try await c.query("SELECT pg_notify(\(Self.channel), \(payload))", logger: logger)
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
}
