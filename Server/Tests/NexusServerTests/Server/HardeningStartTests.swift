import Foundation
import Logging
import NexusWire
import SQLiteNIO
import Testing

@testable import NexusServer

/// Rows from before the identity rule, the database's file modes, a damaged
/// database file.
struct IdentityRepairTests {
    private static func rows(_ pairs: [(Int64, String)]) -> [IdentityRepair.Row] { pairs.map { .init(id: $0.0, text: $0.1) } }

    @Test func lookAlikesAreDisabledAndOthersNormalised() {
        let repair = IdentityRepair(
            users: Self.rows([
                (1, "bob@example.test"), (2, "bob@example.test\u{0}"), (3, "Carol@Example.test"), (4, "jose\u{301}@example.test"),
                (5, "jos\u{E9}@example.test"), (6, "Dave@example.test"), (7, "DAVE@example.test"), (8, "eve\u{200B}@example.test"),
                (9, "disabled:9@invalid"),
            ]),
            displayNames: Self.rows([(1, "Bob"), (2, "Bob\u{1B}[2J"), (3, "\u{200B}")]),
            titles: Self.rows([(10, "ops\u{7}"), (11, "fine")]))
        #expect(repair.disabled.map(\.id) == [2, 4, 7, 8])
        #expect(repair.disabled.map(\.to) == ["disabled:2@invalid", "disabled:4@invalid", "disabled:7@invalid", "disabled:8@invalid"])
        #expect(repair.emails.map(\.id) == [3, 6])
        #expect(repair.emails.map(\.to) == ["carol@example.test", "dave@example.test"])
        #expect(repair.names.map(\.to) == ["Bob[2J", "user 3"])
        #expect(repair.titles.map(\.to) == ["ops"])
        // Once applied, nothing is left to do.
        #expect(IdentityRepair(users: Self.rows([(1, "bob@example.test"), (2, "disabled:2@invalid")]), displayNames: [], titles: []).isEmpty)
    }

    /// The look-alike account stored as an old nexusd stored it: SQLite reads the impostor's
    /// email back cut at the NUL, as bob's own; start-up disables it and revokes its session.
    @Test func startUpDisablesAStoredLookAlike() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nexusd-repair-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/nexus.sqlite"
        let config = ServerConfig(host: "127.0.0.1", port: 0, databasePath: path, logLevel: .critical, bcryptCost: 4)
        let impostorToken = try await buildApplication(config).test(.router) { client in
            let api = API(client: client)
            _ = try await api.register("bob@example.test", name: "Bob")
            return try await api.register("impostor@example.test", name: "Bob").token
        }
        let database = try await SQLiteDatabase.open(path: path, logger: Logger(label: "test"))
        _ = try await database.writer.perform { db in
            try await db.query("UPDATE users SET email = CAST(X'626F62406578616D706C652E7465737400' AS TEXT) WHERE email = 'impostor@example.test'")
        }
        // As an old nexusd left it: two accounts that both read as bob@example.test.
        #expect(try await SQLiteUserStore(db: database).users(excluding: 0, search: nil).map(\.email) == ["bob@example.test", "bob@example.test"])
        try await database.close()

        try await buildApplication(config).test(.router) { client in
            let api = API(client: client)
            try expectError(try await api.call(.get, "/v1/me", token: impostorToken), .unauthorized, code: "unauthorized")
            let bob = try decode(AuthResponse.self, try await api.login("bob@example.test"))
            let users = try decode(UsersResponse.self, try await api.call(.get, "/v1/users", token: bob.token))
            #expect(users.users.map(\.email) == ["disabled:2@invalid"])
        }
    }
}

struct DatabaseFileTests {
    /// Made under a umask that lets everyone read: still 700 and 600.
    @Test func theFolderAndFilesAreOnlyTheOwners() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nexusd-modes-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/data/nexus.sqlite"
        let old = umask(0o022)
        defer { umask(old) }
        var config = ServerConfig(host: "127.0.0.1", port: 0, databasePath: path, logLevel: .critical, bcryptCost: 4)
        config.dataFolder = folder + "/data"
        try await buildApplication(config).test(.router) { client in
            _ = try await API(client: client).register("alice@example.com")
            func mode(_ p: String) throws -> Int { (try FileManager.default.attributesOfItem(atPath: p)[.posixPermissions] as? Int) ?? -1 }
            #expect(try mode(folder + "/data") == 0o700)
            for suffix in ["", "-wal", "-shm"] { #expect(try mode(path + suffix) == 0o600, "\(suffix)") }
        }
    }

    @Test func existingFilesArePutRight() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nexusd-modes-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/nexus.sqlite"
        for suffix in ["", "-wal"] {
            _ = FileManager.default.createFile(atPath: path + suffix, contents: nil, attributes: [.posixPermissions: 0o644])
        }
        try DatabaseFiles.prepare(path: path, ownFolder: true)
        func mode(_ p: String) throws -> Int { (try FileManager.default.attributesOfItem(atPath: p)[.posixPermissions] as? Int) ?? -1 }
        #expect(try mode(folder) == 0o700)
        #expect(try mode(path) == 0o600)
        #expect(try mode(path + "-wal") == 0o600)
    }

    @Test func aDamagedDatabaseIsNamedWithWhatToDo() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nexusd-corrupt-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/nexus.sqlite"
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        let config = ServerConfig(host: "127.0.0.1", port: 0, databasePath: path, logLevel: .critical, bcryptCost: 4)
        do {
            _ = try await buildApplication(config)
            Issue.record("a damaged database was opened")
        } catch {
            let message = String(describing: error)
            #expect(message.contains(path))
            #expect(message.contains("restore it from a backup"))
        }
    }
}

/// A stranger who knows an email can't lock its owner out.
struct LoginLockoutTests {
    @Test func aStrangersFailuresDoNotLockTheOwnersAddress() {
        let limiter = LoginLimiter(ServerLimits())
        let now = Timestamp.now()
        for _ in 0..<5 { #expect(limiter.admit(account: "bob@example.test", address: "203.0.113.9", now: now) == nil) }
        #expect(limiter.admit(account: "bob@example.test", address: "203.0.113.9", now: now) != nil)
        #expect(limiter.admit(account: "bob@example.test", address: "198.51.100.1", now: now) == nil)
    }

    @Test func manyAddressesTogetherLockTheAccountExceptWhereTheOwnerLoggedInBefore() {
        var limits = ServerLimits()
        limits.loginFailuresPerAccount = 10
        let limiter = LoginLimiter(limits)
        let now = Timestamp.now()
        #expect(limiter.admit(account: "bob@example.test", address: "192.0.2.1", now: now) == nil)
        limiter.succeeded(account: "bob@example.test", address: "192.0.2.1", admittedAt: now)
        for n in 0..<10 { #expect(limiter.admit(account: "bob@example.test", address: "203.0.113.\(n)", now: now) == nil) }
        #expect(limiter.admit(account: "bob@example.test", address: "198.51.100.1", now: now) != nil)
        #expect(limiter.admit(account: "bob@example.test", address: "192.0.2.1", now: now) == nil)
    }

    /// Over a real socket, where the server sees the peer's address; the limit per account
    /// and address still stops guessing from one address.
    @Test func oneAddressIsStillStoppedAfterFiveGuesses() async throws {
        try await withServer(mode: .live) { api in
            _ = try await api.register("alice@example.com")
            for _ in 0..<5 { try expectError(try await api.login("alice@example.com", password: "wrong one"), .unauthorized, code: "invalid_credentials") }
            try expectError(try await api.login("alice@example.com"), .tooManyRequests, code: "too_many_logins")
        }
    }
}
