import NexusCore
import PostgresNIO

/// The cluster bus over PostgreSQL's LISTEN/NOTIFY, on `channel`. Feed notes are sent
/// inside the transactions that append events (`appendEvents`), so PostgreSQL delivers
/// them exactly when the events become visible; typing notes are sent here.
extension PostgresDatabase: ClusterBus {
    static let channel = "nexus"

    func publish(_ note: ClusterNote) async {
        guard let payload = note.payload(origin: origin) else { return }
        do {
            _ = try await client.query("SELECT pg_notify(\(Self.channel), \(payload))", logger: logger).collect()
        } catch {
            logger.warning("could not publish to the other replicas: \(error)")
        }
    }

    /// Holds one pooled connection for LISTEN; when it breaks, listens again on a new one
    /// and reports `.reconnected`, since notes sent in between are gone.
    func listen(_ deliver: @escaping @Sendable (ClusterNote) async -> Void) async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        await deliver(.reconnected)
                        for try await notification in notifications {
                            if let note = ClusterNote(payload: notification.payload, skipping: origin) { await deliver(note) }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("lost the LISTEN connection to PostgreSQL, listening again: \(error)")
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }
}
