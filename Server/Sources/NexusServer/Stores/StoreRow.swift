import NIOCore
import NexusWire
import PostgresNIO
import SQLiteNIO

/// A result row as the shared mappings read it, met by SQLiteRow and PostgreSQL's rows,
/// so each model is built from a row in one place and only the SQL differs by backend.
/// A NULL reads as nil.
protocol StoreRow {
    func int(_ column: String) throws -> Int64?
    func text(_ column: String) throws -> String?
    /// A boolean column (INTEGER 0/1 on SQLite, BOOLEAN on PostgreSQL); nil when the
    /// query did not select it.
    func flag(_ column: String) throws -> Bool?
    /// A text column that not every query selects: nil when it was not selected.
    func textIfSelected(_ column: String) throws -> String?
    /// An integer column that not every query selects: nil when it was not selected.
    func intIfSelected(_ column: String) throws -> Int64?
}

extension SQLiteRow: StoreRow {
    func int(_ column: String) -> Int64? { self.column(column)?.integer.map(Int64.init) }
    func text(_ column: String) -> String? { self.column(column)?.string }
    func flag(_ column: String) -> Bool? { self.column(column)?.integer.map { $0 != 0 } }
    func textIfSelected(_ column: String) -> String? { self.column(column)?.string }
    func intIfSelected(_ column: String) -> Int64? { int(column) }
}

extension PostgresRandomAccessRow: StoreRow {
    func flag(_ column: String) throws -> Bool? { contains(column) ? try self[column].decode(Bool?.self) : nil }

    func int(_ column: String) throws -> Int64? { try self[column].decode(Int64?.self) }

    func textIfSelected(_ column: String) throws -> String? { contains(column) ? try text(column) : nil }

    func intIfSelected(_ column: String) throws -> Int64? { contains(column) ? try int(column) : nil }

    /// Message text is BYTEA on PostgreSQL (its TEXT cannot hold U+0000; see PostgresSchema).
    func text(_ column: String) throws -> String? {
        let cell = self[column]
        if cell.dataType == .bytea { return try cell.decode(ByteBuffer?.self).map { String(buffer: $0) } }
        return try cell.decode(String?.self)
    }
}

/// Row -> model mappings both backends share; each names the columns its SQL must select.
enum Rows {
    /// id, email, display_name and (when selected) last_seen_at, bot and registered_at
    /// (users.created_at, under a name no session's created_at can shadow in a join).
    static func user(_ row: some StoreRow) throws -> User {
        User(
            id: try row.int("id") ?? 0, email: try row.text("email") ?? "", displayName: try row.text("display_name") ?? "",
            lastSeenAt: try row.int("last_seen_at").map(Timestamp.init(milliseconds:)),
            // Absent for people, so their JSON is as it was before bots.
            bot: try row.flag("bot") == true ? true : nil,
            createdAt: try row.intIfSelected("registered_at").map(Timestamp.init(milliseconds:)))
    }

    /// A message's columns (`messageColumns`), each name after `prefix`.
    static func message(_ row: some StoreRow, prefix: String = "") throws -> Message {
        func int(_ name: String) throws -> Int64 { try row.int(prefix + name) ?? 0 }
        return Message(
            id: try int("id"), conversationId: try int("conversation_id"), seq: try int("seq"), senderId: try int("sender_id"),
            localId: try row.text(prefix + "local_id") ?? "", text: try row.text(prefix + "text") ?? "",
            sentAt: Timestamp(milliseconds: try int("sent_at")), replyTo: try row.int(prefix + "reply_to"),
            editedAt: try timestamp(row, prefix + "edited_at"), deletedAt: try timestamp(row, prefix + "deleted_at"),
            reactions: try row.text(prefix + "reactions").flatMap(ReactionsColumn.decode),
            attachments: AttachmentColumn.decode(try row.text(prefix + "attachments")),
            membership: MembershipColumn.decode(try row.textIfSelected(prefix + "membership")))
    }

    static func timestamp(_ row: some StoreRow, _ column: String) throws -> Timestamp? {
        try row.int(column).map(Timestamp.init(milliseconds:))
    }
}

/// The database broke a rule the schema or the code keeps (a row that must exist does not).
enum StoreError: Error {
    case inconsistent(String)
}
