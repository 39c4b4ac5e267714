import Logging
import PostgresNIO
import Synchronization

/// The send batcher's own connection (PostgresSendBatcher), on which PostgreSQL always runs
/// a prepared statement on its generic plan (PostgresSendStatement.swift). A replica's
/// batcher writes one group at a time, so one connection serves it, held rather than leased:
/// a PostgresClient's lease and release around each group (its pool's state machine, a
/// continuation and the request's bookkeeping) cost 43 µs of CPU next to the group's 61 µs
/// query, in a loop of the same 4-row statement on NIO's executor.
///
/// Opened at once, so that the first send does not connect and prepare first (13-14 ms
/// against 2: a cron job's send, every time). A connection found closed is opened again
/// at its next use; the calls that saw it fail are answered 503 by PostgresDatabase, as
/// on a pool's connection. Statements sent at once (a group and the keep-alive) queue on
/// the connection, in PostgresNIO.
final class SendsConnection: Sendable {
    private enum Link {
        case none
        case connecting(Task<PostgresConnection, any Error>)
        case open(PostgresConnection)
        case closed
    }

    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let link = Mutex(Link.none)

    /// `configuration` with the sends' startup parameters added: their name in
    /// `pg_stat_activity`, and the generic plans.
    init(configuration: PostgresConnection.Configuration, logger: Logger) {
        var configuration = configuration
        configuration.options.additionalStartupParameters += [("application_name", "nexusd sends"), ("plan_cache_mode", "force_generic_plan")]
        self.configuration = configuration
        self.logger = logger
        // As the pool's minimum did. When it fails, the first send tries again.
        _ = try? current()
    }

    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection: PostgresConnection
        switch try current() {
        case .open(let open): connection = open
        case .connecting(let task): connection = try await task.value
        case .none, .closed: throw DatabaseUnavailable()  // not returned by current()
        }
        return try await body(connection)
    }

    /// The open connection, or the task opening one (started here when there is none or
    /// the last one closed).
    private func current() throws(DatabaseUnavailable) -> Link {
        try link.withLock { link throws(DatabaseUnavailable) -> Link in
            switch link {
            case .closed:
                throw DatabaseUnavailable()
            case .open(let connection) where !connection.isClosed:
                return link
            case .connecting:
                return link
            case .open, .none:
                link = .connecting(Task { [configuration, logger] in
                    do {
                        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                        self.opened(connection)
                        return connection
                    } catch {
                        self.failed()
                        throw error
                    }
                })
                return link
            }
        }
    }

    /// Kept unless closed meanwhile: `close` then closes it, once this task has returned it.
    private func opened(_ connection: PostgresConnection) {
        link.withLock { link in
            if case .connecting = link { link = .open(connection) }
        }
    }

    private func failed() {
        link.withLock { link in
            if case .connecting = link { link = .none }
        }
    }

    func close() async {
        let last = link.withLock { link -> Link in
            defer { link = .closed }
            return link
        }
        switch last {
        case .open(let connection):
            try? await connection.close()
        case .connecting(let task):
            task.cancel()
            if let connection = try? await task.value { try? await connection.close() }
        case .none, .closed:
            break
        }
    }
}
