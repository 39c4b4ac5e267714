import SQLiteNIO
import VaporCSQLite

/// One result row, read out of SQLite before the statement steps on: integers and text
/// (what the messages table holds), by column name as StoreRow reads them.
struct DirectRow: StoreRow, Sendable {
    /// Column names to indexes, shared by a statement's rows.
    final class Columns: Sendable {
        let index: [String: Int]
        init(_ statement: OpaquePointer) {
            var index: [String: Int] = [:]
            for i in 0..<Int(sqlite_nio_sqlite3_column_count(statement)) {
                index[String(cString: sqlite_nio_sqlite3_column_name(statement, Int32(i)))] = i
            }
            self.index = index
        }

        init(names: [String]) {
            index = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { _, last in last })
        }
    }

    private enum Value { case int(Int64), text(String), null }
    private let columns: Columns
    private let values: [Value]

    init(_ statement: OpaquePointer, columns: Columns) {
        self.columns = columns
        values = (0..<columns.index.count).map { i in
            let i = Int32(i)
            switch sqlite_nio_sqlite3_column_type(statement, i) {
            case SQLITE_INTEGER: return .int(sqlite_nio_sqlite3_column_int64(statement, i))
            case SQLITE_NULL: return .null
            default:
                guard let text = sqlite_nio_sqlite3_column_text(statement, i) else { return .null }
                let count = Int(sqlite_nio_sqlite3_column_bytes(statement, i))
                return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            }
        }
    }

    /// A row SQLiteNIO read (the in-memory database, which has no kept-statement reader).
    init(_ row: SQLiteRow, columns: Columns) {
        self.columns = columns
        values = row.columns.map { column in
            switch column.data {
            case .integer(let v): .int(Int64(v))
            case .null: .null
            default: column.data.string.map(Value.text) ?? .null
            }
        }
    }

    private func value(_ column: String) -> Value {
        columns.index[column].map { values[$0] } ?? .null
    }

    func int(_ column: String) -> Int64? {
        if case .int(let v) = value(column) { return v }
        return nil
    }

    func text(_ column: String) -> String? {
        if case .text(let v) = value(column) { return v }
        return nil
    }

    func flag(_ column: String) -> Bool? { int(column).map { $0 != 0 } }

    func textIfSelected(_ column: String) -> String? { text(column) }
    func intIfSelected(_ column: String) -> Int64? { int(column) }
}
