import Foundation
import Logging
import Testing

@testable import NexusServer

/// The service that closes the database at shutdown.
@Suite(.timeLimit(.minutes(1)))
struct DatabaseServiceTests {
    /// Cancelled (as the service group cancels it when a shutdown comes with an error, as in
    /// a test that threw), it still closes every connection. The close stopped half-way, and
    /// SQLiteNIO's check of a connection left open stopped the whole test process.
    @Test func cancelledItStillClosesTheDatabase() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nexusd-service-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stores = try await SQLiteDatabase.stores(path: folder.appendingPathComponent("nexus.sqlite").path, logger: Logger(label: "test"))
        let database = try #require(stores.database as? SQLiteDatabase)
        let services = AppServices(stores: stores, passwords: Passwords(cost: 4), limits: ServerLimits(), clock: { .now() })
        let (inLoop, entered) = AsyncStream.makeStream(of: Void.self)
        let running = Task { try await DatabaseService(services: services, running: { entered.yield() }).run() }
        var loop = inLoop.makeAsyncIterator()
        await loop.next()
        running.cancel()
        _ = await running.result
        #expect(await database.writer.connection.isClosed)
    }
}
