import LibC
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `login` leaves behind: the server and the bearer token for one account.
public struct Session: Codable, Sendable, Equatable {
    public var server: String
    public var token: String
    public var user: User
    public var createdAt: Timestamp
    /// When the session lapses unless used: the server slides it with use and states the
    /// new time on its answers, which the client saves (nil: unknown, an older session file).
    public var expiresAt: Timestamp?

    public init(server: String, token: String, user: User, createdAt: Timestamp, expiresAt: Timestamp? = nil) {
        self.server = server
        self.token = token
        self.user = user
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// One account on one server: a folder under the Nexus home holding its session,
/// outbox, cache and cursors.
public struct Profile: Sendable {
    public static let defaultName = "default"

    public let name: String
    public let directory: String

    public init(name: String, home: String) {
        self.name = name
        self.directory = home + "/" + name
    }

    /// `$NEXUS_HOME`, else `$XDG_DATA_HOME/nexus`, else `~/.local/share/nexus`.
    public static func home(environment: [String: String]) -> String {
        if let home = environment["NEXUS_HOME"], !home.isEmpty { return home }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/nexus" }
        return (environment["HOME"] ?? ".") + "/.local/share/nexus"
    }

    /// Why `name` can't name a profile (it becomes a folder name), or nil.
    public static func problem(withName name: String) -> String? {
        let allowed = name.unicodeScalars.allSatisfy {
            ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "-" || $0 == "_" || $0 == "."
        }
        if name.isEmpty || !allowed || name.hasPrefix(".") || name.count > 64 {
            return "'\(name)' can't name a profile: use letters, digits, '-', '_' and '.', not starting with '.'"
        }
        return nil
    }

    var sessionPath: String { directory + "/session.json" }
    public var outbox: JSONLinesFile { JSONLinesFile(path: directory + "/outbox.jsonl") }
    var outboxLockPath: String { directory + "/outbox.lock" }
    var directsPath: String { directory + "/directs.json" }

    public func ensureDirectory() throws(StoreError) {
        try FileSystem.makeDirectories(directory)
    }

    public func loadSession() throws(StoreError) -> Session? {
        guard let bytes = try FileSystem.readFile(sessionPath) else { return nil }
        if let mode = FileSystem.mode(of: sessionPath), mode & 0o077 != 0 {
            throw StoreError(
                path: sessionPath,
                reason: "is readable by other users (mode \(String(mode, radix: 8))); run: chmod 600 \(sessionPath)")
        }
        do {
            return try JSONDecoder().decode(Session.self, from: Data(bytes))
        } catch {
            throw StoreError(path: sessionPath, reason: "is damaged; run `nexusctl login` again to replace it")
        }
    }

    public func saveSession(_ session: Session) throws(StoreError) {
        try ensureDirectory()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let bytes: Data
        do { bytes = try encoder.encode(session) } catch { throw StoreError(path: sessionPath, reason: "\(error)") }
        try FileSystem.writeAtomically(sessionPath, Array(bytes) + [10], mode: 0o600)
    }

    public func deleteSession() {
        unlink(sessionPath)
    }

    /// A copy of the CA certificates the profile logged in with (--cacert, $NEXUS_CACERT),
    /// so its next commands trust its server without being told again, while other
    /// profiles keep the system's store.
    var caPath: String { directory + "/ca.pem" }

    public var savedCA: String? { FileSystem.exists(caPath) ? caPath : nil }

    /// Keeps `file`'s certificates for this profile; nil drops the copy (a login to
    /// another server that needs none).
    public func saveCA(from file: String?) throws(StoreError) {
        guard let file else {
            unlink(caPath)
            return
        }
        guard file != caPath else { return }
        guard let bytes = try FileSystem.readFile(file) else { throw StoreError(path: file, reason: "does not exist") }
        try ensureDirectory()
        try FileSystem.writeAtomically(caPath, bytes, mode: 0o600)
    }

    /// Direct conversations by the other member's email, so `send bob@example.com`
    /// needs no lookup round trip once the conversation is known.
    public func loadDirects() -> [String: Int64] {
        guard let bytes = try? FileSystem.readFile(directsPath),
              let map = try? JSONDecoder().decode([String: Int64].self, from: Data(bytes))
        else { return [:] }
        return map
    }

    func rememberDirect(email: String, conversationId: Int64) throws(StoreError) {
        var map = loadDirects()
        guard map[email.lowercased()] != conversationId else { return }
        map[email.lowercased()] = conversationId
        try saveDirects(map)
    }

    func saveDirects(_ map: [String: Int64]) throws(StoreError) {
        guard map != loadDirects() else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let bytes = try? encoder.encode(map) else { return }
        try ensureDirectory()
        try FileSystem.writeAtomically(directsPath, Array(bytes), durable: false)
    }

    /// The saved position of a `tail -f` stream (see FeedPosition): one per scope, all
    /// conversations or one, and per name; the unnamed default keeps the old file names.
    func cursorPath(conversationId: Int64?, name: String? = nil) -> String {
        directory + "/cursor-" + (conversationId.map { "c\($0)" } ?? "all") + (name.map { "@" + $0 } ?? "")
    }
}
