import Logging
import PostgresNIO
import Synchronization

/// The send batcher's own connection (PostgresSendBatcher), on which PostgreSQL always runs
/// a prepared statement on its generic plan (PostgresSendStatement.swift). A replica's
/// batcher writes one group at a time, so one connection serves it, held rather than leased:
/// a PostgresClient's lease and release around each group (its pool's state machine, a
/// continuation and the request's bookkeeping) cost 43 µs of CPU next to the group's 61 µs
/// query, in a loop of the same 4-row statement on NIO's executor (issue 19).
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
    }

    private struct State {
        var link = Link.none
        var closed = false
    }

    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let state = Mutex(State())

    init(configuration: PostgresConnection.Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        // As the pool's minimum did. When it fails, the first send tries again.
        _ = try? connection()
    }

    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection: PostgresConnection
        switch try self.connection() {
        case .open(let open): connection = open
        case .connecting(let task): connection = try await task.value
        case .none: throw DatabaseUnavailable()
        }
        return try await body(connection)
    }

    /// The open connection, or the task opening one (started here when there is none or
    /// the last one closed).
    private func connection() throws(DatabaseUnavailable) -> Link {
        let link = state.withLock { state -> Link in
            guard !state.closed else { return .none }
            switch state.link {
            case .open(let connection) where !connection.isClosed:
                return state.link
            case .connecting:
                return state.link
            case .open, .none:
                let task = Task { [configuration, logger] in
                    do {
                        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                        self.opened(connection)
                        return connection
                    } catch {
                        self.failed()
                        throw error
                    }
                }
                state.link = .connecting(task)
                return state.link
            }
        }
        if case .none = link { throw DatabaseUnavailable() }
        return link
    }

    private func opened(_ connection: PostgresConnection) {
        let keep = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.link = .open(connection)
            return true
        }
        // Closed meanwhile: this one is not kept either.
        if !keep { Task { try? await connection.close() } }
    }

    private func failed() {
        state.withLock { state in
            if case .connecting = state.link { state.link = .none }
        }
    }

    func close() async {
        let link = state.withLock { state -> Link in
            state.closed = true
            defer { state.link = .none }
            return state.link
        }
        switch link {
        case .open(let connection): try? await connection.close()
        case .connecting(let task):
            task.cancel()
            if let connection = try? await task.value { try? await connection.close() }
        case .none: break
        }
    }
}
