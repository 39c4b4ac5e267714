import NIOPosix
import SQLiteNIO
// SQLiteNIO's own copy of SQLite, as SQLiteDirect: one SQLite library in the process.
import VaporCSQLite

/// A read-only connection through the sqlite3 C API, on a thread of its own, for reads too
/// large for SQLiteNIO: it prepares every statement anew, hands each row over as an array
/// of values and finds columns by name, which was most of the cost of listing 10,000
/// conversations (docs/benchmarks.md). Here statements are prepared once per
/// connection and read column by column, by index, where they are stepped.
///
/// WAL lets it read beside the one writer without blocking it. Its thread is not an event
/// loop; every use of the connection runs there (`run`), one at a time.
final class SQLiteReadConnection: @unchecked Sendable {
    private let handle: SQLiteHandle
    private let thread: NIOThreadPool
    private var db: OpaquePointer? { handle.db }

    init(path: String) throws {
        thread = NIOThreadPool(numberOfThreads: 1)
        handle = try SQLiteHandle(path: path, thread: thread, threadName: "SQLite read thread")
        // Reads only, whatever a caller's SQL says.
        let pragma = sqlite_nio_sqlite3_exec(handle.db, "PRAGMA query_only=ON", nil, nil, nil)
        guard pragma == SQLITE_OK else { throw DirectSQLiteError(status: pragma, db: handle.db) }
        thread.start()
    }

    /// Finalizes the kept statements, closes the connection and stops the thread.
    func close() async throws {
        _ = try? await run { connection in connection.handle.closeNow() }
        try await thread.shutdownGracefully()
    }

    /// Runs `body` on the connection's thread; one hop there and one back.
    func run<T: Sendable>(_ body: @escaping @Sendable (SQLiteReadConnection) throws -> T) async throws -> T {
        try await handle.run { try body(self) }
    }

    /// Hands `body` to the connection's thread and returns at once, for a caller on another
    /// blocking thread that waits for it by other means (SQLiteConversationList+Halves).
    /// `body` gets false when the thread has stopped, and must not use the connection then.
    func submit(_ body: @escaping @Sendable (SQLiteReadConnection, _ running: Bool) -> Void) {
        thread.submit { state in
            guard case .active = state else { return body(self, false) }
            body(self, true)
        }
    }

    /// How many times its kept statements were re-prepared (SQLiteHandle.reprepares).
    var reprepares: Int { handle.reprepares }

    /// The rows of `sql`, its statement prepared once and kept.
    func rows(_ sql: String, _ binds: [Int64]) throws -> [DirectRow] {
        var rows: [DirectRow] = []
        try query(sql, binds) { cursor in
            rows.append(DirectRow(cursor.statement, columns: handle.columns(of: cursor.statement)))
        }
        return rows
    }

    /// Runs `sql` without results (BEGIN, COMMIT, a pragma).
    func execute(_ sql: String) throws {
        try query(sql, []) { _ in }
    }

    /// Steps `sql` (prepared on first use, then kept) with integer `binds`, calling `row`
    /// for each result row while the statement stands on it.
    func query(_ sql: String, _ binds: [Int64], row: (SQLiteCursor) throws -> Void) throws {
        let statement = try handle.prepared(sql)
        defer {
            sqlite_nio_sqlite3_reset(statement)
            sqlite_nio_sqlite3_clear_bindings(statement)
        }
        for (i, bind) in binds.enumerated() {
            let status = sqlite_nio_sqlite3_bind_int64(statement, Int32(i + 1), bind)
            guard status == SQLITE_OK else { throw DirectSQLiteError(status: status, db: db) }
        }
        while true {
            let status = sqlite_nio_sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw DirectSQLiteError(status: status, db: db) }
            try row(SQLiteCursor(statement: statement))
        }
    }
}

/// The current row of a stepped statement, read by column index. Valid only inside the
/// `query` callback that received it.
struct SQLiteCursor {
    let statement: OpaquePointer

    func isNull(_ column: Int32) -> Bool { sqlite_nio_sqlite3_column_type(statement, column) == SQLITE_NULL }

    /// The column as an integer, nil when NULL.
    func int(_ column: Int32) -> Int64? {
        isNull(column) ? nil : sqlite_nio_sqlite3_column_int64(statement, column)
    }

    /// The column's text as UTF-8 bytes, without a copy, nil when NULL; the bytes live until
    /// the statement steps on.
    func bytes(_ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard !isNull(column), let text = sqlite_nio_sqlite3_column_text(statement, column) else { return nil }
        return UnsafeBufferPointer(start: text, count: Int(sqlite_nio_sqlite3_column_bytes(statement, column)))
    }

    /// The column's text as a String (invalid UTF-8 repaired, as SQLiteNIO reads it), nil when NULL.
    func text(_ column: Int32) -> String? {
        bytes(column).map { String(decoding: $0, as: UTF8.self) }
    }
}
