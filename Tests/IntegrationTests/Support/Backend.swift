import Foundation

/// Which database the suite runs on: SQLite, the embedded default, or PostgreSQL when
/// $NEXUS_TEST_POSTGRES names a server (Tests/scripts/with-postgres.sh sets it, and
/// `make test` runs the suite both ways).
enum Backend {
    static let postgres = ProcessInfo.processInfo.environment["NEXUS_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    static var name: String { postgres == nil ? "SQLite" : "PostgreSQL" }

    /// The database of a server whose files live in `directory`: a SQLite file there, or
    /// a PostgreSQL database of its own, created on first use, so a restarted server
    /// finds its data again.
    static func database(for directory: String) throws -> String {
        guard let postgres else { return directory + "/nexus.sqlite" }
        let name = "t_" + String(directory.split(separator: "/").last!.map { $0.isLetter || $0.isNumber ? $0 : "_" }).lowercased()
        let marker = directory + "/postgres-database"
        if !FileManager.default.fileExists(atPath: marker) {
            let psql = ProcessInfo.processInfo.environment["NEXUS_TEST_PSQL"] ?? "psql"
            let created = try runTool(psql, ["-q", "-v", "ON_ERROR_STOP=1", postgres, "-c", "CREATE DATABASE \(name)"])
            guard created.code == 0 else { throw HarnessError("could not create database \(name): \(created.err)") }
            try Data(name.utf8).write(to: URL(fileURLWithPath: marker))
        }
        guard let url = URLComponents(string: postgres) else { throw HarnessError("bad NEXUS_TEST_POSTGRES \(postgres)") }
        var database = url
        database.path = "/" + name
        return database.string!
    }
}

extension Backend {
    /// Everything a database holds, as bytes to search: the SQLite file and its WAL, or a
    /// pg_dump of the PostgreSQL database.
    static func contents(of database: String) throws -> Data {
        guard postgres != nil else {
            return [database, database + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }.reduce(Data(), +)
        }
        let psql = ProcessInfo.processInfo.environment["NEXUS_TEST_PSQL"] ?? "psql"
        let pgDump = psql.hasSuffix("/psql") ? String(psql.dropLast(4)) + "pg_dump" : "pg_dump"
        let dump = try runTool(pgDump, ["--data-only", database])
        guard dump.code == 0 else { throw HarnessError("pg_dump failed: \(dump.err)") }
        return Data(dump.out.utf8)
    }
}

extension Backend {
    /// Runs SQL straight on a server's database, as an older nexusd or another replica
    /// could have written it: with sqlite3 (Debian's package; .ci/run installs it) or psql.
    static func execute(_ sql: String, on database: String) throws {
        let r = postgres == nil
            ? try runTool("sqlite3", ["-bail", "-cmd", ".timeout 5000", database, sql])
            : try runTool(ProcessInfo.processInfo.environment["NEXUS_TEST_PSQL"] ?? "psql", ["-q", "-v", "ON_ERROR_STOP=1", database, "-c", sql])
        guard r.code == 0 else { throw HarnessError("SQL failed on \(name): \(r.err)") }
    }

    /// One number from a server's database (sqlite3 or psql).
    static func count(_ sql: String, on database: String) throws -> Int {
        let r = postgres == nil
            ? try runTool("sqlite3", ["-cmd", ".timeout 5000", database, sql])
            : try runTool(ProcessInfo.processInfo.environment["NEXUS_TEST_PSQL"] ?? "psql", ["-qtA", database, "-c", sql])
        guard r.code == 0, let n = Int(r.out.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HarnessError("\(sql) failed: \(r.err)")
        }
        return n
    }

    /// A SQL expression for the text of `scalars`, NUL and controls included, in this
    /// backend's dialect (char() in SQLite, chr() in PostgreSQL).
    static func text(_ value: String) -> String {
        let call = postgres == nil ? "char" : "chr"
        return value.unicodeScalars.map { "\(call)(\($0.value))" }.joined(separator: " || ")
    }
}

extension Backend {
    /// What each SQLite migration after the search index's (version 14) changed, undone, newest
    /// first: an upgrade test that rolls a database back to an older version undoes them too, or
    /// nexusd would apply them again on a schema that already has them. A new migration that
    /// such a test trips over (a column or table that "already exists") adds its undo here.
    static let sqliteUndo: [Int: String] = [
        15: """
            DROP TRIGGER hook_enqueue;
            ALTER TABLE hooks DROP COLUMN events;
            ALTER TABLE hook_deliveries DROP COLUMN change_id;
            CREATE TRIGGER hook_enqueue AFTER INSERT ON messages BEGIN
                INSERT INTO hook_deliveries (hook_id, event, message_id, created_at)
                SELECT id, 'message.created', NEW.id, NEW.sent_at FROM hooks
                WHERE conversation_id = NEW.conversation_id AND kind = 'outgoing' AND revoked_at IS NULL AND disabled_at IS NULL;
            END;
            """,
        16: "DROP TABLE user_pictures;",
        17: "DROP INDEX members_muted; ALTER TABLE members DROP COLUMN mute_except_mentions; ALTER TABLE members DROP COLUMN muted_until;",
    ]

    /// Undoes the SQLite migrations after `version` that `sqliteUndo` knows, and forgets them
    /// in `schema_migrations`; the caller undoes the older ones it rolls back itself.
    static func undoSQLiteMigrations(after version: Int, on database: String) throws {
        let applied = try count("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", on: database)
        for v in stride(from: applied, to: max(version, 14), by: -1) {
            guard let undo = sqliteUndo[v] else { throw HarnessError("no undo for SQLite migration \(v): add it to Backend.sqliteUndo") }
            try execute(undo + "\nDELETE FROM schema_migrations WHERE version = \(v);", on: database)
        }
    }
}
