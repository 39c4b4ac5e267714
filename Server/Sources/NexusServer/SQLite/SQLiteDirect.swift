import NIOPosix
import SQLiteNIO
// SQLiteNIO's own copy of SQLite (its symbols prefixed sqlite_nio_), so the process holds
// one SQLite library: two copies in one process would drop each other's POSIX locks.
import VaporCSQLite

/// The writer's second connection, for the hot path of sends: the sqlite3 C API directly,
/// with statements prepared once and kept for the connection's life. SQLiteNIO prepares
/// every statement anew and hands each result row to an event loop on its own; a group
/// commit of single sends spent most of its CPU there (docs/benchmarks.md).
///
/// Only SQLiteWriter uses it, from its drain loop, so writes stay serialised through the
/// one writer whichever of its two connections they take; every call runs on the writer's
/// one SQLite thread.
final class SQLiteDirect: @unchecked Sendable {
    private let handle: SQLiteHandle
    private var db: OpaquePointer? { handle.db }

    /// Opens `path` with the writer's settings (SQLiteDatabase.writerSettings).
    init(path: String, thread: NIOThreadPool) throws {
        handle = try SQLiteHandle(path: path, thread: thread, threadName: "SQLite thread")
        for pragma in SQLiteDatabase.writerSettings {
            _ = try query(pragma)
        }
    }

    /// Finalizes the kept statements and closes; call it on the SQLite thread (`run`).
    func closeNow() {
        handle.closeNow()
    }

    /// Runs `body` on the writer's SQLite thread; one hop there and one back.
    func run<T: Sendable>(_ body: @escaping @Sendable (SQLiteDirect) throws -> T) async throws -> T {
        try await handle.run { try body(self) }
    }

    /// Steps `sql` (prepared on first use, then reused) with `binds`; its rows.
    func query(_ sql: String, _ binds: [SQLiteData] = []) throws -> [DirectRow] {
        let statement = try handle.prepared(sql)
        defer {
            sqlite_nio_sqlite3_reset(statement)
            sqlite_nio_sqlite3_clear_bindings(statement)
        }
        for (i, bind) in binds.enumerated() {
            let index = Int32(i + 1)
            let status: Int32
            switch bind {
            case .integer(let v): status = sqlite_nio_sqlite3_bind_int64(statement, index, Int64(v))
            case .text(let v):
                status = sqlite_nio_sqlite3_bind_text64(statement, index, v, UInt64(v.utf8.count), transient, UInt8(SQLITE_UTF8))
            case .null: status = sqlite_nio_sqlite3_bind_null(statement, index)
            case .float(let v): status = sqlite_nio_sqlite3_bind_double(statement, index, v)
            case .blob(let v):
                status = v.withUnsafeReadableBytes {
                    sqlite_nio_sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), transient)
                }
            }
            guard status == SQLITE_OK else { throw DirectSQLiteError(status: status, db: db) }
        }
        let columns = handle.columns(of: statement)
        var rows: [DirectRow] = []
        while true {
            let status = sqlite_nio_sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw DirectSQLiteError(status: status, db: db) }
            rows.append(DirectRow(statement, columns: columns))
        }
    }
}

/// SQLite copies a bound value before the call returns (the C macro SQLITE_TRANSIENT).
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A failed call of the sqlite3 API; SQLiteDatabase.surfaced turns busy and full into 503s.
struct DirectSQLiteError: Error, CustomStringConvertible {
    /// The primary result code (SQLITE_BUSY, SQLITE_FULL, …), without the extended bits.
    let code: Int32
    let message: String

    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    init(status: Int32, db: OpaquePointer?) {
        code = status & 0xFF
        message = sqlite_nio_sqlite3_errmsg(db).map { String(cString: $0) } ?? "SQLite error \(status)"
    }

    var description: String { "SQLite error \(code): \(message)" }
}
