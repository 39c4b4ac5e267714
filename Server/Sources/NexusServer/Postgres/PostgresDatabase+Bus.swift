import NexusWire
import PostgresNIO

/// The cluster bus over PostgreSQL's LISTEN/NOTIFY, on `channel`. Feed notes are sent
/// inside the transactions that append events (`appendEvents`), so PostgreSQL delivers
/// them exactly when the events become visible; typing notes are sent here.
extension PostgresDatabase: ClusterBus {
    static let channel = "nexus"

    func publish(_ note: ClusterNote) async {
        guard let payload = note.payload(origin: origin) else { return }
        do {
            _ = try await rows("SELECT pg_notify(\(Self.channel), \(payload))")
        } catch {
            logger.warning("could not publish to the other replicas: \(error)")
        }
    }

    /// Holds one pooled connection on the primary for LISTEN; when it breaks, or the
    /// primary moved to another host (a failover: notes are only heard on the server they
    /// were sent on), listens again on the primary's pool and reports `.reconnected`,
    /// since notes sent in between are gone.
    func listen(_ deliver: @escaping @Sendable (ClusterNote) async -> Void) async {
        while !Task.isCancelled {
            guard let pool = try? await primary.pool() else {
                try? await Task.sleep(for: .milliseconds(200))
                continue
            }
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await self.listen(on: pool, deliver) }
                    group.addTask { try await self.waitUntilReplaced(pool) }
                    defer { group.cancelAll() }
                    _ = try await group.next()
                }
            } catch {
                if Task.isCancelled { return }
                if Self.isUnavailable(error) { primary.lost(pool) }
                logger.warning("lost the LISTEN connection to PostgreSQL, listening again: \(String(reflecting: error))")
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    private func listen(on pool: PostgresPrimary.Pool, _ deliver: @escaping @Sendable (ClusterNote) async -> Void) async throws {
        try await pool.client.withConnection { connection in
            try await connection.listen(on: Self.channel) { notifications in
                await deliver(.reconnected)
                for try await notification in notifications {
                    if let note = ClusterNote(payload: notification.payload, skipping: origin) { await deliver(note) }
                }
            }
        }
    }

    private struct PrimaryMoved: Error, CustomStringConvertible {
        var description: String { "the PostgreSQL primary moved to another host" }
    }

    /// Throws once `pool` is no longer the primary's.
    private func waitUntilReplaced(_ pool: PostgresPrimary.Pool) async throws {
        while primary.isCurrent(pool) { try await Task.sleep(for: .milliseconds(250)) }
        throw PrimaryMoved()
    }
}
