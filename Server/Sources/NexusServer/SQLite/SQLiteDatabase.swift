import Foundation
import Logging
import NIOCore
import NIOPosix
import NexusWire
import SQLiteNIO
import Synchronization

/// The embedded default backend: one SQLite file in WAL mode, one writer connection
/// with group commit, and a few reader connections that WAL lets run beside it.
final class SQLiteDatabase: Database {
    let writer: SQLiteWriter
    private let readers: [SQLiteConnection]
    /// The conversation list's own reader (SQLiteConversationList); nil in memory.
    let listReader: SQLiteReadConnection?
    /// The second half of a long conversation list, read beside `listReader`; nil in memory.
    let listHelper: SQLiteReadConnection?
    /// The feed's pages' reader (`readKept`), apart from the list's so that a poll's page
    /// never waits behind a long list; nil in memory.
    let feedReader: SQLiteReadConnection?
    private let nextReader = Atomic<Int>(0)
    private let pools: [NIOThreadPool]
    /// The one thread every write goes through (WriterHold).
    var writerThread: NIOThreadPool { pools[0] }
    static let writerThreadName = "sqlite-writer"
    let logger: Logger

    static func open(path: String, readers readerCount: Int = 2, logger: Logger) async throws -> SQLiteDatabase {
        let storage: SQLiteConnection.Storage = path == ":memory:" ? .memory : .file(path: path)
        // SQLite gets threads of its own: on the shared pool, a few bcrypt hashes would
        // stall every query, and one writer thread hands work over with less contention.
        let writerPool = NIOThreadPool(numberOfThreads: 1)
        writerPool.start()
        // Its own name in `top -H`, perf and /proc, where NIO's pools are all "TP-#0": the
        // bench reads this thread's CPU by it.
        writerPool.submit { _ in nameThisThread(SQLiteDatabase.writerThreadName) }
        let readerPool = NIOThreadPool(numberOfThreads: readerCount)
        readerPool.start()
        let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
        let writeConnection = try await SQLiteConnection.open(storage: storage, threadPool: writerPool, logger: logger, on: eventLoop)
        do {
            for pragma in writerSettings { _ = try await writeConnection.query(pragma) }
            _ = try await writeConnection.query("PRAGMA busy_timeout=\(busyTimeoutMs)")
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
                _ = try await reader.query("PRAGMA busy_timeout=\(busyTimeoutMs)")
                readers.append(reader)
            }
        }
        for reader in readers { try await reader.install(customFunction: SQLiteUserStore.fold()) }
        var direct: SQLiteDirect?
        var listReader: SQLiteReadConnection?
        var listHelper: SQLiteReadConnection?
        var feedReader: SQLiteReadConnection?
        do {
            if path != ":memory:" {
                direct = try SQLiteDirect(path: path, thread: writerPool)
                listReader = try SQLiteReadConnection(path: path)
                listHelper = try SQLiteReadConnection(path: path)
                feedReader = try SQLiteReadConnection(path: path)
            }
        } catch {
            // Whichever opened before the one that failed.
            try? await listReader?.close()
            try? await listHelper?.close()
            _ = try? await direct?.run { $0.closeNow() }
            for reader in readers where reader !== writeConnection { try? await reader.close() }
            try? await writeConnection.close()
            try? await writerPool.shutdownGracefully()
            try? await readerPool.shutdownGracefully()
            throw error
        }
        let writer = SQLiteWriter(connection: writeConnection, direct: direct, inserts: SQLiteMessageStore.inserts)
        return SQLiteDatabase(
            writer: writer, readers: readers, listReader: listReader, listHelper: listHelper, feedReader: feedReader, pools: [writerPool, readerPool], logger: logger)
    }

    /// The stores of a SQLite database at `path` (or ":memory:").
    static func stores(path: String, logger: Logger) async throws -> Stores {
        let db = try await open(path: path, logger: logger)
        let conversations = SQLiteConversationStore(db: db)
        return Stores(
            database: db, users: SQLiteUserStore(db: db), conversations: conversations, messages: SQLiteMessageStore(db: db),
            changes: SQLiteMessageChangeStore(db: db),
            receipts: SQLiteReceiptStore(db: db), feed: SQLiteFeedStore(db: db, conversations: conversations),
            tokens: SQLiteTokenStore(db: db), hooks: SQLiteHookStore(db: db), search: SQLiteSearchStore(db: db), attachments: SQLiteAttachmentStore(db: db, folder: blobFolder(path)),
            mutes: SQLiteMuteStore(db: db), presence: SQLitePresenceStore(), bus: nil)
    }

    /// The blob folder beside the database file: `nexus.sqlite` keeps its files in
    /// `nexus.sqlite-blobs/`. An in-memory database gets a temporary folder.
    static func blobFolder(_ path: String) -> String {
        guard path == ":memory:" else { return path + "-blobs" }
        return NSTemporaryDirectory() + "nexusd-blobs-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    private init(
        writer: SQLiteWriter, readers: [SQLiteConnection], listReader: SQLiteReadConnection?, listHelper: SQLiteReadConnection?,
        feedReader: SQLiteReadConnection?, pools: [NIOThreadPool], logger: Logger
    ) {
        self.writer = writer
        self.readers = readers
        self.listReader = listReader
        self.listHelper = listHelper
        self.feedReader = feedReader
        self.pools = pools
        self.logger = logger
    }

    private var reader: SQLiteConnection {
        readers[nextReader.add(1, ordering: .relaxed).oldValue % readers.count]
    }

    /// A query on one of the reader connections, which WAL lets run beside the writer.
    func read(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        do {
            return try await reader.query(sql, binds)
        } catch {
            throw Self.surfaced(error)
        }
    }

    /// A query with integer binds on the feed's reader, which keeps its statements and
    /// prepares it once, where SQLiteNIO prepares every statement anew: for the feed's
    /// page, read by every long poll woken. In memory, on a reader as `read`.
    func readKept(_ sql: String, _ binds: [Int64]) async throws -> [DirectRow] {
        do {
            guard let feedReader else {
                let rows = try await reader.query(sql, binds.map { .integer(Int($0)) })
                guard let first = rows.first else { return [] }
                let columns = DirectRow.Columns(names: first.columns.map(\.name))
                return rows.map { DirectRow($0, columns: columns) }
            }
            return try await feedReader.run { try $0.rows(sql, binds) }
        } catch {
            throw Self.surfaced(error)
        }
    }

    /// Both writer connections' settings (SQLiteDirect's too). WAL, and synchronous=FULL: a
    /// commit is on disk when it returns. secure_delete: what a row or page held before it was
    /// rewritten or freed is overwritten with zeros, so an edited or deleted message's text
    /// does not stay in the file (docs/protocol.md); SQLiteNIO builds with it on, this keeps it.
    static let writerSettings = ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=ON", "PRAGMA secure_delete=ON"]

    /// How long a statement waits for a lock another process holds on the file (a backup,
    /// the sqlite3 shell) before the request is answered 503, as PostgresDatabase.deadline.
    static let busyTimeoutMs = 5_000

    /// A file locked for longer than `busyTimeoutMs`, or a full disk, as DatabaseUnavailable:
    /// answered 503 with Retry-After, so clients keep the message and try again later.
    static func surfaced(_ error: any Error) -> any Error {
        if let e = error as? DirectSQLiteError {
            switch e.code {
            case 5, 6: return DatabaseUnavailable()  // SQLITE_BUSY, SQLITE_LOCKED
            case 13: return DatabaseUnavailable(reason: .storageFull)  // SQLITE_FULL
            default: return error
            }
        }
        guard let e = error as? SQLiteError else { return error }
        switch e.reason {
        case .busy, .busyTimeout, .busyInRecovery, .busyInSnapshot, .locked: return DatabaseUnavailable()
        case .full: return DatabaseUnavailable(reason: .storageFull)
        default: return error
        }
    }

    func close() async throws {
        try await writer.close()
        for r in readers where r !== writer.connection { try? await r.close() }
        try? await listReader?.close()
        try? await listHelper?.close()
        try? await feedReader?.close()
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
}

/// Names the calling thread, as a thread may through /proc (proc(5), "comm"); Glibc's
/// pthread_setname_np is not visible to Swift. Best effort: a name only shows in tools.
private func nameThisThread(_ name: String) {
    let fd = open("/proc/thread-self/comm", O_WRONLY)
    guard fd >= 0 else { return }
    _ = name.withCString { write(fd, $0, strlen($0)) }
    close(fd)
}
