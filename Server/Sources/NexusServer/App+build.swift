import Foundation
import Hummingbird
import HummingbirdCore
import NexusWire
import Logging
import NIOCore
import ServiceLifecycle

/// How nexusd is started; nexusd's command line fills it in.
public struct ServerConfig: Sendable {
    public var host: String
    public var port: Int
    /// The SQLite file, ":memory:", or a postgres:// URL (see PostgresURL).
    public var databasePath: String
    public var logLevel: Logger.Level
    public var bcryptCost: UInt8
    public var limits: ServerLimits
    /// Serve HTTPS with these (`--tls-cert`, `--tls-key`); nil serves plain HTTP.
    public var tls: TLSCertificates?
    /// Tests only (`--clock-offset-file`): seconds to add to the clock, read from this
    /// file at each look at it.
    public var clockOffsetFile: String?
    /// What a program built on this application adds (nexusd-bench's routes); none in nexusd.
    package var extensions: [any ServerExtension] = []
    /// The one folder nexusd may create for a SQLite database, and makes 700 at every start.
    /// nexusd sets the default one: any other folder must exist, so a mistyped --db stops it
    /// instead of leaving a new folder tree behind. nil: the database's own (in-process tests).
    public var dataFolder: String?

    public init(
        host: String = "127.0.0.1", port: Int = 8787, databasePath: String, logLevel: Logger.Level = .info, bcryptCost: UInt8 = 10,
        limits: ServerLimits = ServerLimits()
    ) {
        self.host = host
        self.port = port
        self.databasePath = databasePath
        self.logLevel = logLevel
        self.bcryptCost = bcryptCost
        self.limits = limits
    }

    /// `$XDG_DATA_HOME/nexusd/nexus.sqlite`, else `~/.local/share/nexusd/nexus.sqlite`.
    public static func defaultDatabasePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? ".") + "/.local/share"
        return base + "/nexusd/nexus.sqlite"
    }
}

/// Builds nexusd: the stores, the router and the application around them.
/// `onListening` is told the address actually bound (the port, when 0 was asked for).
public func buildApplication(
    _ config: ServerConfig, clock: @escaping @Sendable () -> Timestamp = { .now() },
    onListening: @escaping @Sendable (String, Int) -> Void = { _, _ in }
) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "nexusd")
    logger.logLevel = config.logLevel
    let stores: Stores
    if PostgresURL.isPostgres(config.databasePath) {
        stores = try await PostgresDatabase.stores(url: config.databasePath, logger: logger)
    } else {
        let path = config.databasePath
        if path != ":memory:" {
            let folder = ((path as NSString).deletingLastPathComponent as NSString).standardizingPath
            let own = config.dataFolder.map { ($0 as NSString).standardizingPath == folder } ?? true
            try DatabaseFiles.prepare(path: path, ownFolder: own)
        }
        do {
            stores = try await SQLiteDatabase.stores(path: path, logger: logger)
        } catch {
            throw DatabaseFailure.wrap(error, path: path)
        }
    }
    let clock = config.clockOffsetFile.map(offsetClock) ?? clock
    let services = AppServices(stores: stores, passwords: Passwords(cost: config.bcryptCost), limits: config.limits, clock: clock)
    let limits = config.limits
    // Header limits and the idle timeout are NIO's and Hummingbird's: a request over them
    // never reaches the router (docs/protocol.md, "Limits").
    let parserLogger = logger
    let http1 = HTTP1Channel.Configuration(
        additionalChannelHandlers: config.extensions.flatMap { $0.channelHandlers() } + [ParkingHandler(), ParserErrorAnswer(logger: parserLogger)],
        idleTimeout: .seconds(limits.idleTimeoutSeconds),
        httpDecoderConfiguration: .init(
            maxHeaderFieldSize: limits.maxHeaderFieldBytes, maxHeaderListSize: limits.maxHeaderBytes,
            maxHeaderFieldCount: limits.maxHeaderCount))
    var app = Application(
        router: buildRouter(services, extensions: config.extensions, accessLog: logger),
        server: config.tls.map { .reloadableTLS(http1, certificates: $0) } ?? .http1(configuration: http1),
        configuration: .init(address: .hostname(config.host, port: config.port), serverName: serverName, backlog: limits.listenBacklog),
        services: [DatabaseService(services: services), HookDeliveryService(services: services, logger: logger), UploadCleanupService(services: services),
                   SearchIndexService(services: services, logger: logger),
                   PresenceService(services: services)]
            + (stores.bus == nil ? [] : [ClusterService(services: services)]),
        onServerRunning: { channel in
            services.notifier.shutDownWithServer()
            onListening(config.host, channel.localAddress?.port ?? config.port)
        },
        logger: logger)
    app.beforeServerStarts { [path = config.databasePath, services] in
        do { try await stores.database.migrate() } catch { throw DatabaseFailure.wrap(error, path: path) }
        services.hooks.migrated.fire()
    }
    return app
}

/// The time plus the whole number of seconds in `file` (0 while it is missing or holds none).
func offsetClock(_ file: String) -> @Sendable () -> Timestamp {
    {
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        let seconds = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        return Timestamp(milliseconds: Timestamp.now().milliseconds + seconds * 1000)
    }
}

/// `accessLog`: the logger of the request lines (AccessLog), written at its level.
func buildRouter(_ services: AppServices, extensions: [any ServerExtension] = [], accessLog: Logger? = nil) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    // Outside ErrorMiddleware, so that it sees the status an error is answered with.
    if let accessLog { router.add(middleware: AccessLog(logger: accessLog)) }
    router.add(middleware: ErrorMiddleware())
    for e in extensions { e.addRoutes(to: router) }
    router.get("healthz") { _, _ in
        guard StorageCondition.shared.recentlyFull else { return try jsonResponse(["status": "ok"]) }
        return try jsonResponse(["status": "storage_full"], status: .serviceUnavailable)
    }
    addRoutes(to: router.group("v1"), services: services)
    return router
}

/// Saves last-seen times every 15 s and deletes expired sessions; at shutdown, saves them once more and closes the
/// database after the server has stopped taking requests.
struct DatabaseService: Service {
    let services: AppServices
    /// Runs once the service is in its loop, so that a test can cancel it there.
    var running: @Sendable () -> Void = {}

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var sweeps = 0
            while !Task.isCancelled {
                // Expired sessions at start-up and every 4 minutes (cheap: an indexed range).
                if sweeps % 16 == 0 { await services.deleteExpiredSessions() }
                if sweeps == 0 { running() }
                sweeps += 1
                try await Task.sleep(for: .seconds(15))
                await services.saveLastSeen()
            }
        }
        // Apart from this task, whose cancellation (the service group cancelled on a shutdown
        // that a thrown error began) would stop the close half-way, leaving connections open.
        try await Task {
            await services.saveLastSeen()
            try await services.stores.database.close()
        }.value
    }
}

/// Listens to the other replicas until shutdown.
struct ClusterService: Service {
    let services: AppServices

    func run() async throws {
        guard let bus = services.bus else { return }
        await cancelWhenGracefulShutdown {
            await bus.listen { note in await services.apply(note) }
        }
    }
}

/// Deletes uploads no message refers to once they are older than a day, every hour (or,
/// when tests shrink the day, every time that shorter age passes).
struct UploadCleanupService: Service {
    let services: AppServices

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let before = Timestamp(milliseconds: services.clock().milliseconds - services.limits.unreferencedUploadSeconds * 1000)
                _ = try? await services.stores.attachments.cleanUp(before: before)
                try await Task.sleep(for: .seconds(min(3600, services.limits.unreferencedUploadSeconds)))
            }
        }
    }
}
