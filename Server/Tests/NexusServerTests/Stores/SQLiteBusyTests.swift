import Foundation
import HummingbirdTesting
import Logging
import NIOCore
import NIOPosix
import NexusWire
import SQLiteNIO
import Testing

@testable import NexusServer

/// SQLite's answer to a database that does not answer in time, as PostgreSQL's: another
/// process holding the file's write lock past the busy timeout gets the request a 503 with
/// Retry-After (the client keeps the message), and once the lock goes, writes go through.
struct SQLiteBusyTests {
    @Test(.enabled(if: !onPostgres, "SQLite only"))
    func aFileLockedPastTheTimeoutIsA503ThenWritesResume() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nexusd-busy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("nexus.sqlite").path
        let app = try await buildApplication(ServerConfig(port: 0, databasePath: path, logLevel: .critical, bcryptCost: 4))
        try await app.test(.router) { client in
            let api = API(client: client)
            let (alice, _, conversation) = try await api.pair()
            // Another process's lock, as a backup tool or the sqlite3 shell would take it.
            let other = try await SQLiteConnection.open(
                storage: .file(path: path), threadPool: .singleton, logger: Logger(label: "other"),
                on: MultiThreadedEventLoopGroup.singleton.any())
            _ = try await other.query("BEGIN IMMEDIATE")
            let started = ContinuousClock.now
            let refused = try await api.call(
                .post, "/v1/conversations/\(conversation)/messages", token: alice.token,
                json: SendRequest(localId: "while-locked", text: "hello"))
            try expectError(refused, .serviceUnavailable, code: "unavailable")
            #expect(refused.headers[.retryAfter] == "5")
            #expect(ContinuousClock.now - started >= .milliseconds(SQLiteDatabase.busyTimeoutMs - 100))
            _ = try await other.query("ROLLBACK")
            try await other.close()
            let (sent, status) = try await api.send(alice.token, to: conversation, localId: "while-locked")
            #expect(status == .created)
            #expect(sent.message.seq == 1)
        }
    }
}
