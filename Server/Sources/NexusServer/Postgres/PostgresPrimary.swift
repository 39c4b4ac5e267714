import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// Where nexusd's queries go. On one host: one PostgresClient pool, which reconnects by
/// itself. On several (a cluster with automatic failover, docs/deploy.md): a pool on
/// whichever host is the writable primary, found by asking each in turn, as libpq's
/// `target_session_attrs=read-write` does, since PostgresNIO 1.33 connects to one host only.
///
/// When the primary stops answering or turns read-only, its pool is dropped and the hosts
/// are asked again, every 250 ms, until one is writable. Meanwhile a request waits at most
/// `searchWait` and is then answered 503 + Retry-After (clients queue), never held on a dead host.
final class PostgresPrimary: Sendable {
    /// A pool on one host, dropped when that host stops being the primary.
    final class Pool: Sendable {
        let client: PostgresClient
        /// The send batcher's connection, where PostgreSQL always runs a prepared statement
        /// on its generic plan (PostgresSendStatement.swift). Elsewhere `plan_cache_mode`
        /// stays `auto`, which plans that statement anew at each bind.
        let sends: SendsConnection
        let endpoint: PostgresURL.Endpoint
        private let runners: [Task<Void, Never>]
        private let dropped = Atomic(false)
        /// When `sends` last ran a statement: see `keepAlive`.
        private let sendsUsed = LastUse()

        /// No longer the primary's pool: calls on it fail (QueryDeadlines.abandon).
        var isDropped: Bool { dropped.load(ordering: .sequentiallyConsistent) }

        init(
            client: PostgresClient, sends: SendsConnection, endpoint: PostgresURL.Endpoint,
            keepAlive: Duration = PostgresPrimary.keepAlive, logger: Logger
        ) {
            self.client = client
            self.sends = sends
            self.endpoint = endpoint
            // Immediate, so each client is running before the first query asks it for a connection.
            self.runners = [
                Task.immediate { await client.run() },
                Task { [sendsUsed] in await Self.keepAlive(sends, every: keepAlive, used: sendsUsed, logger: logger) },
            ]
        }

        /// Called for each statement run on `sends`.
        func usedSends() {
            sendsUsed.now()
        }

        /// When something last happened, in NIO's uptime nanoseconds.
        final class LastUse: Sendable {
            private let nanoseconds = Atomic<UInt64>(NIODeadline.now().uptimeNanoseconds)
            func now() { nanoseconds.store(NIODeadline.now().uptimeNanoseconds, ordering: .relaxed) }
            /// How long until `period` has passed since then; zero once it has.
            func left(of period: Duration) -> Duration {
                let since = Int64(NIODeadline.now().uptimeNanoseconds &- nanoseconds.load(ordering: .relaxed))
                return max(.zero, period - .nanoseconds(since))
            }
        }

        /// PostgresNIO's own keep-alive (PostgresURL.clientConfiguration) sets a timer each
        /// time a connection goes back to its pool and cancels it at the next lease: three
        /// tasks and a Dispatch timer a group, 6.5 % of a replica's CPU on the bench's single
        /// sends when they had a pool. The sends' connection is asked `SELECT 1` only after
        /// `period` without a statement, as PostgresNIO asks an idle one, so that a middlebox
        /// does not drop it.
        private static func keepAlive(_ sends: SendsConnection, every period: Duration, used: LastUse, logger: Logger) async {
            while true {
                let left = used.left(of: period)
                if left > .zero {
                    do { try await Task.sleep(for: left) } catch { return }  // the pool closed
                    continue
                }
                // A failure is the connection's: the next use opens another.
                _ = try? await sends.withConnection { try await $0.query("SELECT 1", logger: logger).collect().count }
                used.now()
            }
        }

        /// Called by QueryDeadlines.abandon, before it fails the calls in flight.
        func markDropped() {
            dropped.store(true, ordering: .sequentiallyConsistent)
        }

        func close() async {
            for runner in runners { runner.cancel() }
            for runner in runners { _ = await runner.value }
            await sends.close()
        }
    }

    private struct State {
        var current: Pool?
        var search: Task<Void, Never>?
        var watchdog: Task<Void, Never>?
        var closed = false
    }

    /// How long a request waits for a primary to be found before it is answered 503:
    /// short, since a failover takes seconds and clients retry on their own.
    static let searchWait: Duration = .seconds(1)
    /// How often the primary is asked whether it still is one, so that a host that died
    /// without closing its connections, or was demoted, is noticed without waiting for a
    /// request to time out.
    static let checkEvery: Duration = .seconds(1)

    let url: PostgresURL
    /// Every call in flight on a pool, with its deadline.
    let calls = QueryDeadlines()
    let maxConnections: Int
    /// How long the sends' connection may stay idle before it is asked `SELECT 1`
    /// (Pool.keepAlive): PostgresNIO's default for its own keep-alive.
    static let keepAlive: Duration = .seconds(30)
    let keepAlive: Duration
    let logger: Logger
    private let state = Mutex(State())
    private let tls: PostgresConnection.Configuration.TLS

    /// Several hosts: the primary is looked for and followed. One host: it is the database.
    var followsPrimary: Bool { url.endpoints.count > 1 }

    init(url: PostgresURL, maxConnections: Int, keepAlive: Duration = PostgresPrimary.keepAlive, logger: Logger) throws {
        self.url = url
        self.maxConnections = maxConnections
        self.keepAlive = keepAlive
        self.logger = logger
        switch url.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        if followsPrimary {
            state.withLock { $0.watchdog = Task { [weak self] in await self?.watch() } }
        } else {
            let pool = makePool(on: url.endpoint)
            state.withLock { $0.current = pool }
        }
    }

    /// The pool on the primary; when none is known, starts looking and waits up to `wait`.
    func pool(waiting wait: Duration = PostgresPrimary.searchWait) async throws(DatabaseUnavailable) -> Pool {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: wait)
        while true {
            if let pool = currentOrSearch() { return pool }
            guard clock.now < end, !Task.isCancelled else { throw DatabaseUnavailable() }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    func isCurrent(_ pool: Pool) -> Bool {
        state.withLock { $0.current === pool }
    }

    /// `pool`'s host stopped answering, or refused a write: forget it and look again.
    /// With one host there is nothing else to try; its pool reconnects by itself.
    func lost(_ pool: Pool) {
        guard followsPrimary else { return }
        let dropped = state.withLock { state -> Bool in
            guard state.current === pool else { return false }
            state.current = nil
            return true
        }
        guard dropped else { return }
        logger.warning("lost the PostgreSQL primary at \(pool.endpoint); looking for the new one")
        calls.abandon(pool)
        Task { await pool.close() }
        _ = currentOrSearch()
    }

    func close() async {
        let (current, search, watchdog) = state.withLock { state in
            state.closed = true
            defer { state.current = nil }
            return (state.current, state.search, state.watchdog)
        }
        watchdog?.cancel()
        search?.cancel()
        await current?.close()
    }

    private func makePool(on endpoint: PostgresURL.Endpoint) -> Pool {
        Pool(
            client: PostgresClient(configuration: url.clientConfiguration(maxConnections: maxConnections, endpoint: endpoint), backgroundLogger: logger),
            sends: SendsConnection(configuration: connectionConfiguration(endpoint), logger: logger),
            endpoint: endpoint, keepAlive: keepAlive, logger: logger)
    }

    private func currentOrSearch() -> Pool? {
        state.withLock { state in
            if let current = state.current { return current }
            if state.search == nil, !state.closed { state.search = Task { await self.search() } }
            return nil
        }
    }

    /// Asks the hosts in turn until one is a writable primary, and opens a pool on it.
    private func search() async {
        var rounds = 0
        while !Task.isCancelled {
            for endpoint in url.endpoints {
                guard await isWritablePrimary(endpoint) else { continue }
                let pool = makePool(on: endpoint)
                let kept = state.withLock { state -> Bool in
                    state.search = nil
                    guard !state.closed else { return false }
                    state.current = pool
                    return true
                }
                if kept { logger.notice("the PostgreSQL primary is \(endpoint)") } else { await pool.close() }
                return
            }
            if rounds == 0 {
                logger.warning("no writable PostgreSQL primary among \(url.endpoints.map(\.description).joined(separator: ",")); asking again")
            }
            rounds += 1
            try? await Task.sleep(for: .milliseconds(250))
        }
        state.withLock { $0.search = nil }
    }

    private func watch() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.checkEvery)
            guard let pool = state.withLock({ $0.current }) else { continue }
            if await !isWritablePrimary(pool.endpoint) { lost(pool) }
        }
    }

    /// A connection of its own to `endpoint`.
    private func connectionConfiguration(_ endpoint: PostgresURL.Endpoint) -> PostgresConnection.Configuration {
        var config: PostgresConnection.Configuration
        switch endpoint {
        case .tcp(let host, let port):
            config = .init(host: host, port: port, username: url.username, password: url.password, database: url.database, tls: tls)
        case .socket(let path):
            config = .init(unixSocketPath: path, username: url.username, password: url.password, database: url.database)
        }
        return config
    }

    /// Whether the host at `endpoint` takes writes, on a connection of its own with a short
    /// timeout. `transaction_read_only` rather than `pg_is_in_recovery()`: a just-promoted
    /// standby, or a primary being demoted, can be out of recovery and still read-only.
    func isWritablePrimary(_ endpoint: PostgresURL.Endpoint) async -> Bool {
        var config = connectionConfiguration(endpoint)
        config.options.connectTimeout = .seconds(1)
        let (logger, configuration) = (logger, config)
        do {
            return try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                    // Closed before it is released, whatever the answer: PostgresNIO insists.
                    do {
                        let rows = try await connection.query("SHOW transaction_read_only", logger: logger).collect()
                        try? await connection.close()
                        return try rows.first?.decode(String.self) == "off"
                    } catch {
                        try? await connection.close()
                        throw error
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(2))
                    return false
                }
                defer { group.cancelAll() }
                return try await group.next() ?? false
            }
        } catch {
            logger.debug("PostgreSQL at \(endpoint) is not a writable primary: \(error)")
            return false
        }
    }
}
