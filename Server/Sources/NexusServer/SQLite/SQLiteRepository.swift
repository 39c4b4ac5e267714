import Logging
import NIOCore
import NIOPosix
import NexusCore
import SQLiteNIO
import Synchronization

/// The embedded default backend: one SQLite file in WAL mode, one writer connection
/// with group commit, and a few reader connections that WAL lets run beside it.
final class SQLiteRepository: Repository {
    let writer: SQLiteWriter
    private let readers: [SQLiteConnection]
    private let nextReader = Atomic<Int>(0)
    private let logger: Logger

    static func open(path: String, readers readerCount: Int = 2, logger: Logger) async throws -> SQLiteRepository {
        let storage: SQLiteConnection.Storage = path == ":memory:" ? .memory : .file(path: path)
        // SQLite gets threads of its own: on the shared pool, a few bcrypt hashes would
        // stall every query, and one writer thread hands work over with less contention.
        let writerPool = NIOThreadPool(numberOfThreads: 1)
        writerPool.start()
        let readerPool = NIOThreadPool(numberOfThreads: readerCount)
        readerPool.start()
        let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
        let writeConnection = try await SQLiteConnection.open(storage: storage, threadPool: writerPool, logger: logger, on: eventLoop)
        do {
            _ = try await writeConnection.query("PRAGMA journal_mode=WAL")
            _ = try await writeConnection.query("PRAGMA synchronous=FULL")
            _ = try await writeConnection.query("PRAGMA foreign_keys=ON")
        } catch {
            // A damaged file fails here; the caller names it (DatabaseFailure).
            try? await writeConnection.close()
            try? await writerPool.shutdownGracefully()
            try? await readerPool.shutdownGracefully()
            throw error
        }
        var readers: [SQLiteConnection] = []
        if path == ":memory:" {
            // An in-memory database is private to its connection.
            readers = [writeConnection]
        } else {
            for _ in 0..<readerCount {
                let reader = try await SQLiteConnection.open(
                    storage: storage, threadPool: readerPool, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any())
                _ = try await reader.query("PRAGMA query_only=ON")
                readers.append(reader)
            }
        }
        return SQLiteRepository(
            writer: SQLiteWriter(connection: writeConnection), readers: readers, pools: [writerPool, readerPool], logger: logger)
    }

    private let pools: [NIOThreadPool]

    private init(writer: SQLiteWriter, readers: [SQLiteConnection], pools: [NIOThreadPool], logger: Logger) {
        self.writer = writer
        self.readers = readers
        self.pools = pools
        self.logger = logger
    }

    private var reader: SQLiteConnection {
        readers[nextReader.add(1, ordering: .relaxed).oldValue % readers.count]
    }

    private func read(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        try await reader.query(sql, binds)
    }

    func close() async throws {
        try await writer.close()
        for r in readers where r !== writer.connection { try? await r.close() }
        for pool in pools { try await pool.shutdownGracefully() }
    }

    func migrate() async throws {
        let migrations = SQLiteSchema.migrations
        let applied = try await writer.perform(multiStatement: true) { db in
            _ = try await db.query("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)")
            let rows = try await db.query("SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations")
            let current = rows.first?.column("v")?.integer ?? 0
            var applied = 0
            for (index, statements) in migrations.enumerated() where index + 1 > current {
                for sql in statements { _ = try await db.query(sql) }
                _ = try await db.query(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                    [.integer(index + 1), .integer(Int(Timestamp.now().milliseconds))])
                applied += 1
            }
            return applied
        }
        if applied > 0 { logger.info("applied \(applied) schema migration(s)") }
        try await repairIdentities().log(logger)
    }

    // MARK: Users and sessions

    func createUser(email: String, displayName: String, passwordHash: String) async throws -> User? {
        let now = Int(Timestamp.now().milliseconds)
        let rows = try await writer.perform { db in
            try await db.query(
                """
                INSERT INTO users (email, display_name, password_hash, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (email) DO NOTHING RETURNING id, email, display_name
                """, [.text(email), .text(displayName), .text(passwordHash), .integer(now)])
        }
        return rows.first.map(Self.user)
    }

    func credentials(email: String) async throws -> Credentials? {
        let rows = try await read("SELECT id, email, display_name, password_hash FROM users WHERE email = ?", [.text(email)])
        return rows.first.map { Credentials(user: Self.user($0), passwordHash: $0.column("password_hash")?.string ?? "") }
    }

    func user(email: String) async throws -> User? {
        try await read("SELECT id, email, display_name, last_seen_at FROM users WHERE email = ?", [.text(email)]).first.map(Self.user)
    }

    func users(excluding viewer: Int64, search: String?) async throws -> [User] {
        var sql = "SELECT id, email, display_name, last_seen_at FROM users WHERE id != ?"
        var binds: [SQLiteData] = [.integer(Int(viewer))]
        if let search, !search.isEmpty {
            sql += " AND (display_name LIKE ? ESCAPE '\\' OR email LIKE ? ESCAPE '\\')"
            let pattern = "%" + escapeLikePattern(search) + "%"
            binds += [.text(pattern), .text(pattern)]
        }
        sql += " ORDER BY display_name COLLATE NOCASE, id LIMIT 1000"
        return try await read(sql, binds).map(Self.user)
    }

    func createSession(userId: Int64, tokenHash: String, expiresAt: Timestamp) async throws {
        let now = Int(Timestamp.now().milliseconds)
        _ = try await writer.perform { db in
            try await db.query(
                "INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                [.text(tokenHash), .integer(Int(userId)), .integer(now), .integer(Int(expiresAt.milliseconds))])
        }
    }

    func session(tokenHash: String) async throws -> StoredSession? {
        try await read(
            """
            SELECT u.id, u.email, u.display_name, s.expires_at FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = ?
            """,
            [.text(tokenHash)]
        ).first.map { row in
            StoredSession(user: Self.user(row), expiresAt: Timestamp(milliseconds: Int64(row.column("expires_at")?.integer ?? 0)))
        }
    }

    func deleteSession(tokenHash: String) async throws {
        _ = try await writer.perform { db in
            try await db.query("DELETE FROM sessions WHERE token_hash = ?", [.text(tokenHash)])
        }
    }

    // MARK: Conversations

    func openDirect(_ a: Int64, _ b: Int64) async throws -> (id: Int64, created: Bool) {
        let key = "\(min(a, b)):\(max(a, b))"
        let now = Int(Timestamp.now().milliseconds)
        return try await writer.perform(multiStatement: true) { db in
            let inserted = try await db.query(
                """
                INSERT INTO conversations (kind, direct_key, created_at, updated_at) VALUES ('direct', ?, ?, ?)
                ON CONFLICT (direct_key) DO NOTHING RETURNING id
                """, [.text(key), .integer(now), .integer(now)])
            if let id = inserted.first?.column("id")?.integer {
                for member in Set([a, b]) {
                    _ = try await db.query(
                        "INSERT INTO members (conversation_id, user_id, joined_at) VALUES (?, ?, ?)",
                        [.integer(id), .integer(Int(member)), .integer(now)])
                }
                _ = try await db.query(
                    "INSERT INTO events (conversation_id, type, ref_id) VALUES (?, 'conversation', ?)",
                    [.integer(id), .integer(id)])
                return (Int64(id), true)
            }
            let existing = try await db.query("SELECT id FROM conversations WHERE direct_key = ?", [.text(key)])
            guard let id = existing.first?.column("id")?.integer else { throw SQLiteRepositoryError.inconsistent("direct \(key)") }
            return (Int64(id), false)
        }
    }

    private static let conversationColumns = """
        c.id, c.kind, c.name, c.last_seq, c.created_at, c.updated_at,
        (SELECT COUNT(*) FROM messages um WHERE um.conversation_id = c.id AND um.seq > me.read_seq AND um.sender_id != me.user_id) AS unread,
        m.id AS m_id, m.conversation_id AS m_conversation_id, m.seq AS m_seq, m.sender_id AS m_sender_id,
        m.local_id AS m_local_id, m.text AS m_text, m.sent_at AS m_sent_at
        """

    func conversation(id: Int64, viewer: Int64) async throws -> Conversation? {
        let rows = try await read(
            """
            SELECT \(Self.conversationColumns) FROM conversations c
            JOIN members me ON me.conversation_id = c.id AND me.user_id = ?
            LEFT JOIN messages m ON m.id = c.last_message_id
            WHERE c.id = ?
            """, [.integer(Int(viewer)), .integer(Int(id))])
        return try await hydrate(rows).first
    }

    /// Two queries whatever the count (the conversations with their member ids, then those
    /// members once each), so a person in thousands of conversations gets a quick answer.
    func conversations(viewer: Int64) async throws -> ConversationsResponse {
        let me: SQLiteData = .integer(Int(viewer))
        let rows = try await read(
            """
            SELECT \(Self.conversationColumns),
                CASE WHEN m.sender_id = me.user_id THEN (SELECT COUNT(*) FROM members o WHERE o.conversation_id = c.id
                    AND o.user_id != me.user_id AND o.read_seq >= m.seq) END AS read_by,
                (SELECT GROUP_CONCAT(mb.user_id) FROM members mb WHERE mb.conversation_id = c.id) AS member_ids
            FROM members me
            JOIN conversations c ON c.id = me.conversation_id
            LEFT JOIN messages m ON m.id = c.last_message_id
            WHERE me.user_id = ?
            ORDER BY c.updated_at DESC, c.id DESC
            """, [me])
        var everyone = Set<Int64>()
        let summaries = rows.map { row in
            let id = Int64(row.column("id")?.integer ?? 0)
            let memberIds = (row.column("member_ids")?.string ?? "").split(separator: ",").compactMap { Int64($0) }.sorted()
            everyone.formUnion(memberIds)
            return ConversationSummary(
                id: id,
                kind: ConversationKind(rawValue: row.column("kind")?.string ?? "") ?? .direct,
                name: row.column("name")?.string,
                memberIds: memberIds,
                lastSeq: Int64(row.column("last_seq")?.integer ?? 0),
                lastMessage: row.column("m_id")?.integer == nil ? nil : Self.message(row, prefix: "m_"),
                createdAt: Timestamp(milliseconds: Int64(row.column("created_at")?.integer ?? 0)),
                updatedAt: Timestamp(milliseconds: Int64(row.column("updated_at")?.integer ?? 0)),
                unreadCount: row.column("unread")?.integer ?? 0,
                lastMessageReadBy: row.column("read_by")?.integer)
        }
        var users: [User] = []
        for chunk in Array(everyone).sorted().chunked(by: 500) {
            users += try await read(
                "SELECT id, email, display_name, last_seen_at FROM users WHERE id IN (" + Array(repeating: "?", count: chunk.count).joined(separator: ",") + ")",
                chunk.map { .integer(Int($0)) }
            ).map(Self.user)
        }
        return ConversationsResponse(conversations: summaries, users: users.sorted { $0.id < $1.id })
    }

    /// Builds conversations from rows of `conversationColumns`, with their members.
    private func hydrate(_ rows: [SQLiteRow]) async throws -> [Conversation] {
        guard !rows.isEmpty else { return [] }
        let ids = rows.compactMap { $0.column("id")?.integer }
        var members: [Int64: [User]] = [:]
        var receipts: [Int64: [MemberReceipts]] = [:]
        // Chunked to stay under SQLite's limit on bound parameters.
        for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let memberRows = try await read(
                """
                SELECT mb.conversation_id, mb.delivered_seq, mb.read_seq, u.id, u.email, u.display_name, u.last_seen_at
                FROM members mb JOIN users u ON u.id = mb.user_id
                WHERE mb.conversation_id IN (\(placeholders)) ORDER BY mb.conversation_id, u.id
                """, chunk.map { .integer($0) })
            for row in memberRows {
                let conversationId = Int64(row.column("conversation_id")?.integer ?? 0)
                let user = Self.user(row)
                members[conversationId, default: []].append(user)
                receipts[conversationId, default: []].append(MemberReceipts(
                    userId: user.id, deliveredSeq: Int64(row.column("delivered_seq")?.integer ?? 0),
                    readSeq: Int64(row.column("read_seq")?.integer ?? 0)))
            }
        }
        return rows.map { row in
            let id = Int64(row.column("id")?.integer ?? 0)
            return Conversation(
                id: id,
                kind: ConversationKind(rawValue: row.column("kind")?.string ?? "") ?? .direct,
                name: row.column("name")?.string,
                members: members[id] ?? [],
                lastSeq: Int64(row.column("last_seq")?.integer ?? 0),
                lastMessage: row.column("m_id")?.integer == nil ? nil : Self.message(row, prefix: "m_"),
                createdAt: Timestamp(milliseconds: Int64(row.column("created_at")?.integer ?? 0)),
                updatedAt: Timestamp(milliseconds: Int64(row.column("updated_at")?.integer ?? 0)),
                unreadCount: row.column("unread")?.integer,
                receipts: receipts[id] ?? [])
        }
    }

    func memberIds(conversationId: Int64) async throws -> [Int64] {
        try await read("SELECT user_id FROM members WHERE conversation_id = ?", [.integer(Int(conversationId))])
            .compactMap { $0.column("user_id")?.integer.map(Int64.init) }
    }

    func createGroup(creator: Int64, members: [Int64], name: String) async throws -> Int64 {
        let now = Int(Timestamp.now().milliseconds)
        return try await writer.perform(multiStatement: true) { db in
            let inserted = try await db.query(
                "INSERT INTO conversations (kind, name, created_at, updated_at) VALUES ('group', ?, ?, ?) RETURNING id",
                [.text(name), .integer(now), .integer(now)])
            guard let id = inserted.first?.column("id")?.integer else { throw SQLiteRepositoryError.inconsistent("group") }
            for member in [creator] + members {
                _ = try await db.query(
                    "INSERT INTO members (conversation_id, user_id, joined_at) VALUES (?, ?, ?)",
                    [.integer(id), .integer(Int(member)), .integer(now)])
            }
            _ = try await db.query(
                "INSERT INTO events (conversation_id, type, ref_id) VALUES (?, 'conversation', ?)", [.integer(id), .integer(id)])
            return Int64(id)
        }
    }

    // MARK: Receipts

    func advanceReceipts(conversationId: Int64, userId: Int64, delivered: Int64?, read: Int64?) async throws -> [Receipt] {
        let now = Timestamp.now()
        return try await writer.perform(multiStatement: true) { db in
            let rows = try await db.query(
                """
                SELECT mb.delivered_seq, mb.read_seq, c.last_seq FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                WHERE mb.conversation_id = ? AND mb.user_id = ?
                """, [.integer(Int(conversationId)), .integer(Int(userId))])
            guard let row = rows.first else { return [] }
            let marks = AdvancedMarks(
                lastSeq: Int64(row.column("last_seq")?.integer ?? 0), delivered: Int64(row.column("delivered_seq")?.integer ?? 0),
                read: Int64(row.column("read_seq")?.integer ?? 0), asked: (delivered, read), userId: userId, at: now)
            guard !marks.moved.isEmpty else { return [] }
            _ = try await db.query(
                "UPDATE members SET delivered_seq = ?, read_seq = ? WHERE conversation_id = ? AND user_id = ?",
                [.integer(Int(marks.delivered)), .integer(Int(marks.read)), .integer(Int(conversationId)), .integer(Int(userId))])
            for r in marks.moved {
                let inserted = try await db.query(
                    "INSERT INTO receipts (conversation_id, user_id, kind, seq, at) VALUES (?, ?, ?, ?, ?) RETURNING id",
                    [.integer(Int(conversationId)), .integer(Int(userId)), .text(r.kind.rawValue), .integer(Int(r.seq)),
                     .integer(Int(now.milliseconds))])
                _ = try await db.query(
                    "INSERT INTO events (conversation_id, type, ref_id) VALUES (?, 'receipt', ?)",
                    [.integer(Int(conversationId)), .integer(inserted.first?.column("id")?.integer ?? 0)])
            }
            return marks.moved
        }
    }

    func message(id: Int64, viewer: Int64) async throws -> Message? {
        try await read(
            """
            SELECT m.id, m.conversation_id, m.seq, m.sender_id, m.local_id, m.text, m.sent_at FROM messages m
            JOIN members me ON me.conversation_id = m.conversation_id AND me.user_id = ? WHERE m.id = ?
            """, [.integer(Int(viewer)), .integer(Int(id))]
        ).first.map { Self.message($0) }
    }

    func message(localId: String, sender: Int64) async throws -> Message? {
        try await read(
            "SELECT id, conversation_id, seq, sender_id, local_id, text, sent_at FROM messages WHERE sender_id = ? AND local_id = ?",
            [.integer(Int(sender)), .text(localId)]
        ).first.map { Self.message($0) }
    }

    func status(of message: Message) async throws -> [MessageStatus.Member] {
        let rows = try await read(
            """
            SELECT u.id, u.email, u.display_name, u.last_seen_at,
                (SELECT MIN(r.at) FROM receipts r WHERE r.conversation_id = mb.conversation_id AND r.user_id = mb.user_id
                    AND r.kind = 'delivered' AND r.seq >= ?) AS delivered_at,
                (SELECT MIN(r.at) FROM receipts r WHERE r.conversation_id = mb.conversation_id AND r.user_id = mb.user_id
                    AND r.kind = 'read' AND r.seq >= ?) AS read_at
            FROM members mb JOIN users u ON u.id = mb.user_id
            WHERE mb.conversation_id = ? AND mb.user_id != ? ORDER BY u.id
            """,
            [.integer(Int(message.seq)), .integer(Int(message.seq)), .integer(Int(message.conversationId)), .integer(Int(message.senderId))])
        return rows.map { row in
            MessageStatus.Member(
                user: Self.user(row),
                deliveredAt: row.column("delivered_at")?.integer.map { Timestamp(milliseconds: Int64($0)) },
                readAt: row.column("read_at")?.integer.map { Timestamp(milliseconds: Int64($0)) })
        }
    }

    func saveLastSeen(_ times: [Int64: Timestamp]) async throws {
        guard !times.isEmpty else { return }
        _ = try await writer.perform(multiStatement: true) { db in
            for (user, at) in times {
                _ = try await db.query(
                    "UPDATE users SET last_seen_at = MAX(COALESCE(last_seen_at, 0), ?) WHERE id = ?",
                    [.integer(Int(at.milliseconds)), .integer(Int(user))])
            }
        }
    }

    // MARK: Messages

    func send(_ messages: [NewMessage]) async throws -> [SendOutcome] {
        try await writer.send(messages)
    }

    func seq(ofMessage id: Int64, conversationId: Int64) async throws -> Int64? {
        try await read("SELECT seq FROM messages WHERE id = ? AND conversation_id = ?", [.integer(Int(id)), .integer(Int(conversationId))])
            .first?.column("seq")?.integer.map(Int64.init)
    }

    func firstSeq(sentAtOrAfter time: Timestamp, conversationId: Int64) async throws -> Int64 {
        let last = Int64(
            try await read("SELECT last_seq FROM conversations WHERE id = ?", [.integer(Int(conversationId))])
                .first?.column("last_seq")?.integer ?? 0)
        return try await firstSeqBySearch(sentAtOrAfter: time, lastSeq: last) { seq in
            Int64(try await read(
                "SELECT sent_at FROM messages WHERE conversation_id = ? AND seq = ?", [.integer(Int(conversationId)), .integer(Int(seq))]
            ).first?.column("sent_at")?.integer ?? 0)
        }
    }

    func messages(conversationId: Int64, before: Int64?, limit: Int) async throws -> MessagesPage {
        let rows = try await read(
            """
            SELECT id, conversation_id, seq, sender_id, local_id, text, sent_at FROM messages
            WHERE conversation_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?
            """, [.integer(Int(conversationId)), .integer(Int(before ?? Int64.max)), .integer(limit + 1)])
        let hasMore = rows.count > limit
        return MessagesPage(messages: rows.prefix(limit).reversed().map { Self.message($0) }, hasMore: hasMore)
    }

    // MARK: Feed

    private static let eventColumns = """
        e.id AS e_id, e.conversation_id AS e_conversation_id, e.type AS e_type,
        m.id, m.conversation_id, m.seq, m.sender_id, m.local_id, m.text, m.sent_at,
        r.user_id AS r_user_id, r.kind AS r_kind, r.seq AS r_seq, r.at AS r_at
        """

    func events(viewer: Int64, after: Int64, conversationId: Int64?, limit: Int) async throws -> [SyncEvent] {
        var sql = """
            SELECT \(Self.eventColumns) FROM events e
            JOIN members me ON me.conversation_id = e.conversation_id AND me.user_id = ?
            LEFT JOIN messages m ON e.type = 'message' AND m.id = e.ref_id
            LEFT JOIN receipts r ON e.type = 'receipt' AND r.id = e.ref_id
            WHERE e.id > ?
            """
        var binds: [SQLiteData] = [.integer(Int(viewer)), .integer(Int(after))]
        if let conversationId {
            sql += " AND e.conversation_id = ?"
            binds.append(.integer(Int(conversationId)))
        }
        sql += " ORDER BY e.id LIMIT ?"
        binds.append(.integer(limit))
        return try await makeEvents(read(sql, binds), viewer: viewer)
    }

    func lastMessageEvents(viewer: Int64, conversationId: Int64?, count: Int) async throws -> (events: [SyncEvent], head: Int64) {
        var filter = ""
        var binds: [SQLiteData] = [.integer(Int(viewer))]
        if let conversationId {
            filter = " AND e.conversation_id = ?"
            binds.append(.integer(Int(conversationId)))
        }
        let headRows = try await read(
            "SELECT COALESCE(MAX(e.id), 0) AS head FROM events e JOIN members me ON me.conversation_id = e.conversation_id AND me.user_id = ? WHERE 1\(filter)",
            binds)
        let head = Int64(headRows.first?.column("head")?.integer ?? 0)
        let rows = try await read(
            """
            SELECT \(Self.eventColumns) FROM events e
            JOIN members me ON me.conversation_id = e.conversation_id AND me.user_id = ?
            JOIN messages m ON m.id = e.ref_id
            LEFT JOIN receipts r ON 0
            WHERE e.type = 'message'\(filter) AND e.id <= ?
            ORDER BY e.id DESC LIMIT ?
            """, binds + [.integer(Int(head)), .integer(count)])
        return (try await makeEvents(rows.reversed(), viewer: viewer), head)
    }

    private func makeEvents(_ rows: [SQLiteRow], viewer: Int64) async throws -> [SyncEvent] {
        var events: [SyncEvent] = []
        events.reserveCapacity(rows.count)
        for row in rows {
            let id = Int64(row.column("e_id")?.integer ?? 0)
            let conversationId = Int64(row.column("e_conversation_id")?.integer ?? 0)
            switch row.column("e_type")?.string {
            case "message":
                events.append(SyncEvent(id: id, type: .message, conversationId: conversationId, message: Self.message(row)))
            case "receipt":
                let receipt = Receipt(
                    userId: Int64(row.column("r_user_id")?.integer ?? 0),
                    kind: ReceiptKind(rawValue: row.column("r_kind")?.string ?? "") ?? .delivered,
                    seq: Int64(row.column("r_seq")?.integer ?? 0),
                    at: Timestamp(milliseconds: Int64(row.column("r_at")?.integer ?? 0)))
                events.append(SyncEvent(id: id, type: .receipt, conversationId: conversationId, receipt: receipt))
            default:
                let conversation = try await self.conversation(id: conversationId, viewer: viewer)
                events.append(SyncEvent(id: id, type: .conversation, conversationId: conversationId, conversation: conversation))
            }
        }
        return events
    }

    // MARK: Row mapping

    private static func user(_ row: SQLiteRow) -> User {
        User(
            id: Int64(row.column("id")?.integer ?? 0),
            email: row.column("email")?.string ?? "",
            displayName: row.column("display_name")?.string ?? "",
            lastSeenAt: row.column("last_seen_at")?.integer.map { Timestamp(milliseconds: Int64($0)) })
    }

    static func message(_ row: SQLiteRow, prefix: String = "") -> Message {
        func int(_ name: String) -> Int64 { Int64(row.column(prefix + name)?.integer ?? 0) }
        return Message(
            id: int("id"), conversationId: int("conversation_id"), seq: int("seq"), senderId: int("sender_id"),
            localId: row.column(prefix + "local_id")?.string ?? "", text: row.column(prefix + "text")?.string ?? "",
            sentAt: Timestamp(milliseconds: int("sent_at")))
    }
}

enum SQLiteRepositoryError: Error {
    case inconsistent(String)
}
