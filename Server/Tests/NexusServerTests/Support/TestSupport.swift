import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NexusWire
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import NexusServer

/// A nexusd on port 0 with a fresh database, and what removes it afterwards: a SQLite
/// file in a new temp folder, or, when NEXUS_TEST_POSTGRES names a server (as
/// Tests/scripts/with-postgres.sh sets it), a new database on that server, so these
/// tests run on both backends. bcrypt cost 4 keeps registration and login fast.
func testConfig(_ limits: ServerLimits) throws -> (ServerConfig, cleanUp: @Sendable () -> Void) {
    var config = ServerConfig(host: "127.0.0.1", port: 0, databasePath: "", logLevel: .warning, bcryptCost: 4, limits: limits)
    if let server = ProcessInfo.processInfo.environment["NEXUS_TEST_POSTGRES"], !server.isEmpty {
        let name = "nexusd_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try TestPostgres.run(server, "CREATE DATABASE \(name)")
        var url = try #require(URLComponents(string: server))
        url.path = "/" + name
        config.databasePath = try #require(url.string)
        return (config, { try? TestPostgres.run(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)") })
    }
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("nexusd-tests-\(UUID().uuidString)", isDirectory: true)
    config.databasePath = folder.appendingPathComponent("nexus.sqlite").path
    return (config, { try? FileManager.default.removeItem(at: folder) })
}

/// The test cluster's psql (NEXUS_TEST_PSQL, else psql on the PATH), for making and
/// dropping each test's database.
enum TestPostgres {
    struct Failed: Error, CustomStringConvertible { var description: String }

    static func run(_ server: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let psql = ProcessInfo.processInfo.environment["NEXUS_TEST_PSQL"] ?? "psql"
        process.arguments = [psql, server, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failed(description: "psql failed (\(process.terminationStatus)): \(sql)") }
    }
}

/// Whether NEXUS_TEST_POSTGRES names a server: the condition of the PostgreSQL-only tests.
let onPostgres = !(ProcessInfo.processInfo.environment["NEXUS_TEST_POSTGRES"] ?? "").isEmpty

/// A fresh database on that server, migrated, open for `body` and closed after it.
/// `keepAlive`: how long the sends' connection idles before the pool asks it `SELECT 1`.
func withMigratedPostgres(
    keepAlive: Duration = PostgresPrimary.keepAlive, _ body: (PostgresDatabase) async throws -> Void
) async throws {
    let (config, cleanUp) = try testConfig(ServerLimits())
    defer { cleanUp() }
    let db = try await PostgresDatabase.open(url: config.databasePath, keepAlive: keepAlive, logger: Logger(label: "test"))
    do {
        try await db.migrate()
        try await body(db)
    } catch {
        try? await db.close()
        throw error
    }
    try await db.close()
}

/// Runs `body` against a fresh nexusd, in-process. `.live` serves on a loopback socket,
/// for what only a real connection has: a peer address, header parsing, idle time.
@discardableResult
func withServer<T: Sendable>(
    clock: @escaping @Sendable () -> Timestamp = { .now() }, limits: ServerLimits = ServerLimits(),
    mode: TestingSetup = .router, _ body: @Sendable (API) async throws -> T
) async throws -> T {
    let (config, cleanUp) = try testConfig(limits)
    defer { cleanUp() }
    let app = try await buildApplication(config, clock: clock)
    return try await app.test(mode) { client in try await body(API(client: client)) }
}

/// Runs `body` with the port of a nexusd serving on loopback, for tests that talk over raw
/// sockets only: the testing framework's own client would not survive the idle timeout.
func withRawServer<T: Sendable>(
    limits: ServerLimits, extensions: [any ServerExtension] = [], _ body: @Sendable (Int) async throws -> T
) async throws -> T {
    try await withRawServer(limits: limits, extensions: extensions) { port, _ in try await body(port) }
}

/// The same, with the server's service group, for tests that shut it down themselves.
func withRawServer<T: Sendable>(
    limits: ServerLimits, extensions: [any ServerExtension] = [], _ body: @Sendable (Int, ServiceGroup) async throws -> T
) async throws -> T {
    var (config, cleanUp) = try testConfig(limits)
    config.extensions = extensions
    defer { cleanUp() }
    let (ports, listening) = AsyncStream.makeStream(of: Int.self)
    let app = try await buildApplication(config, onListening: { _, port in listening.yield(port) })
    let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "test")))
    async let running: Void = group.run()
    var iterator = ports.makeAsyncIterator()
    let port = try #require(await iterator.next())
    do {
        let result = try await body(port, group)
        await group.triggerGracefulShutdown()
        try await running
        return result
    } catch {
        await group.triggerGracefulShutdown()
        try? await running
        throw error
    }
}

/// A thin JSON client over the test client: every call names its token explicitly, so a
/// test reads as the conversation between users it describes.
struct API: Sendable {
    let client: any TestClientProtocol

    /// `presence`: the live client the request names (`Nexus-Presence`), as `tail -f` does.
    func call(_ method: HTTPRequest.Method, _ uri: String, token: String? = nil, raw: String? = nil, presence: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        if let presence { headers[AppServices.presenceHeader] = presence }
        if raw != nil { headers[.contentType] = "application/json" }
        return try await client.executeRequest(
            uri: uri, method: method, headers: headers, body: raw.map { ByteBuffer(string: $0) })
    }

    func call(_ method: HTTPRequest.Method, _ uri: String, token: String? = nil, json: some Encodable) async throws -> TestResponse {
        let data = try JSONEncoder().encode(json)
        return try await call(method, uri, token: token, raw: String(decoding: data, as: UTF8.self))
    }

    // MARK: Steps most tests take

    func login(_ email: String, password: String = "correct horse") async throws -> TestResponse {
        try await call(.post, "/v1/login", json: LoginRequest(email: email, password: password))
    }

    func register(_ email: String, password: String = "correct horse", name: String? = nil) async throws -> AuthResponse {
        let response = try await call(.post, "/v1/register", json: RegisterRequest(email: email, password: password, displayName: name))
        #expect(response.status == .created)
        return try decode(AuthResponse.self, response)
    }

    /// alice and bob, registered, with a direct conversation between them.
    func pair() async throws -> (alice: AuthResponse, bob: AuthResponse, conversation: Int64) {
        let alice = try await register("alice@example.com", name: "Alice")
        let bob = try await register("bob@example.com", name: "Bob")
        let conversation = try await openDirect(alice.token, with: "bob@example.com")
        return (alice, bob, conversation.conversation.id)
    }

    func openDirect(_ token: String, with email: String) async throws -> ConversationResponse {
        let response = try await call(.post, "/v1/conversations", token: token, json: CreateConversationRequest(kind: .direct, members: [email]))
        #expect(response.status == .created || response.status == .ok, "open answered \(response.status): \(response.text)")
        return try decode(ConversationResponse.self, response)
    }

    @discardableResult
    func send(_ token: String, to conversation: Int64, localId: String, text: String? = nil) async throws -> (response: SendResponse, status: HTTPTypes.HTTPResponse.Status) {
        let response = try await call(
            .post, "/v1/conversations/\(conversation)/messages", token: token,
            json: SendRequest(localId: localId, text: text ?? "message \(localId)"))
        try #require(response.status == .created || response.status == .ok, "send answered \(response.status)")
        return (try decode(SendResponse.self, response), response.status)
    }

    func sync(_ token: String, query: String) async throws -> SyncResponse {
        let response = try await call(.get, "/v1/sync?\(query)", token: token)
        try #require(response.status == .ok, "sync answered \(response.status): \(response.text)")
        return try decode(SyncResponse.self, response)
    }

    func messages(_ token: String, in conversation: Int64, query: String = "") async throws -> MessagesPage {
        let response = try await call(.get, "/v1/conversations/\(conversation)/messages\(query.isEmpty ? "" : "?" + query)", token: token)
        try #require(response.status == .ok, "messages answered \(response.status): \(response.text)")
        return try decode(MessagesPage.self, response)
    }
}

func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(response.body.readableBytesView))
}

/// Checks that `response` is an error with the given status and code, in the one error
/// shape nexusd promises (NexusCore.ErrorResponse), and returns it.
@discardableResult
func expectError(
    _ response: TestResponse, _ status: HTTPTypes.HTTPResponse.Status, code: String,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> ErrorResponse {
    #expect(response.status == status, "body: \(response.text)", sourceLocation: sourceLocation)
    #expect(response.headers[.contentType]?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
    let error = try JSONDecoder().decode(ErrorResponse.self, from: Data(response.body.readableBytesView))
    #expect(error.error.code == code, "message: \(error.error.message)", sourceLocation: sourceLocation)
    #expect(!error.error.message.isEmpty, sourceLocation: sourceLocation)
    return error
}

extension TestResponse {
    var text: String { String(buffer: body) }
}

/// A clock a test moves by hand.
final class TestClock: Sendable {
    private let now = Mutex(Timestamp.now())
    func read() -> Timestamp { now.withLock { $0 } }
    func advance(seconds: Int64) { advance(milliseconds: seconds * 1000) }
    func advance(milliseconds: Int64) { now.withLock { $0 = Timestamp(milliseconds: $0.milliseconds + milliseconds) } }
}
