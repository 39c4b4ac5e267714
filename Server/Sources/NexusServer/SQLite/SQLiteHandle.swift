import NIOPosix
import SQLiteNIO
// SQLiteNIO's own copy of SQLite (its symbols prefixed sqlite_nio_), so the process holds
// one SQLite library: two copies in one process would drop each other's POSIX locks.
import VaporCSQLite

/// A connection through the sqlite3 C API with its statements prepared once and kept for
/// the connection's life, used only on its one thread: what the writer's direct connection
/// (SQLiteDirect) and the list's read connection (SQLiteReadConnection) share.
final class SQLiteHandle: @unchecked Sendable {
    private(set) var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    /// Each kept statement's column names, read once (a group's INSERT has 13, a feed page 27).
    private var columns: [OpaquePointer: DirectRow.Columns] = [:]
    private let thread: NIOThreadPool
    /// Names the thread in the error a call gets once it has stopped.
    private let threadName: String

    init(path: String, thread: NIOThreadPool, threadName: String) throws {
        self.thread = thread
        self.threadName = threadName
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let status = sqlite_nio_sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK else {
            let error = DirectSQLiteError(status: status, db: db)
            sqlite_nio_sqlite3_close(db)
            throw error
        }
        sqlite_nio_sqlite3_busy_timeout(db, Int32(SQLiteDatabase.busyTimeoutMs))
    }

    deinit { closeNow() }

    /// Finalizes the kept statements and closes; on the connection's thread (`run`).
    func closeNow() {
        for statement in statements.values { sqlite_nio_sqlite3_finalize(statement) }
        statements = [:]
        columns = [:]
        if db != nil { sqlite_nio_sqlite3_close(db) }
        db = nil
    }

    /// Runs `body` on the connection's thread; one hop there and one back.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            thread.submit { [threadName] state in
                guard case .active = state else {
                    return continuation.resume(throwing: DirectSQLiteError(code: SQLITE_MISUSE, message: "the \(threadName) has stopped"))
                }
                continuation.resume(with: Result { try body() })
            }
        }
    }

    /// How many times SQLite re-prepared the kept statements, all told (tests: a statement
    /// that is re-prepared at each use is not kept at all).
    var reprepares: Int {
        statements.values.reduce(0) { $0 + Int(sqlite_nio_sqlite3_stmt_status($1, SQLITE_STMTSTATUS_REPREPARE, 0)) }
    }

    /// A kept statement's column names, read on first use.
    func columns(of statement: OpaquePointer) -> DirectRow.Columns {
        if let known = columns[statement] { return known }
        let read = DirectRow.Columns(statement)
        columns[statement] = read
        return read
    }

    /// `sql`'s statement, prepared on first use and kept.
    func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let status = sqlite_nio_sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw DirectSQLiteError(status: status, db: db) }
        statements[sql] = statement
        return statement
    }
}
