import NIOCore
import NexusCore
import PostgresNIO
import SQLiteNIO

/// A result row as the shared mappings read it, met by SQLiteRow and PostgreSQL's rows,
/// so each model is built from a row in one place and only the SQL differs by backend.
/// A NULL reads as nil.
protocol StoreRow {
    func int(_ column: String) throws -> Int64?
    func text(_ column: String) throws -> String?
}

extension SQLiteRow: StoreRow {
    func int(_ column: String) -> Int64? { self.column(column)?.integer.map(Int64.init) }
    func text(_ column: String) -> String? { self.column(column)?.string }
}

extension PostgresRandomAccessRow: StoreRow {
    func int(_ column: String) throws -> Int64? { try self[column].decode(Int64?.self) }

    /// Message text is BYTEA on PostgreSQL (its TEXT cannot hold U+0000; see PostgresSchema).
    func text(_ column: String) throws -> String? {
        let cell = self[column]
        if cell.dataType == .bytea { return try cell.decode(ByteBuffer?.self).map { String(buffer: $0) } }
        return try cell.decode(String?.self)
    }
}

/// Row -> model mappings both backends share; each names the columns its SQL must select.
enum Rows {
    /// id, email, display_name and (when selected) last_seen_at.
    static func user(_ row: some StoreRow) throws -> User {
        User(
            id: try row.int("id") ?? 0, email: try row.text("email") ?? "", displayName: try row.text("display_name") ?? "",
            lastSeenAt: try row.int("last_seen_at").map(Timestamp.init(milliseconds:)))
    }

    /// A message's eight columns, each name after `prefix`.
    static func message(_ row: some StoreRow, prefix: String = "") throws -> Message {
        func int(_ name: String) throws -> Int64 { try row.int(prefix + name) ?? 0 }
        return Message(
            id: try int("id"), conversationId: try int("conversation_id"), seq: try int("seq"), senderId: try int("sender_id"),
            localId: try row.text(prefix + "local_id") ?? "", text: try row.text(prefix + "text") ?? "",
            sentAt: Timestamp(milliseconds: try int("sent_at")),
            attachments: AttachmentColumn.decode(try row.text(prefix + "attachments")))
    }

    static func timestamp(_ row: some StoreRow, _ column: String) throws -> Timestamp? {
        try row.int(column).map(Timestamp.init(milliseconds:))
    }
}

/// The database broke a rule the schema or the code keeps (a row that must exist does not).
enum StoreError: Error {
    case inconsistent(String)
}
