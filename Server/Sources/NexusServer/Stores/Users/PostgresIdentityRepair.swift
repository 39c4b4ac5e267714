import NexusWire
import PostgresNIO

extension PostgresDatabase {
    /// Applies the identity rule to stored rows (see IdentityRepair) in one transaction,
    /// under the migration lock, so replicas starting together repair once.
    func repairIdentities() async throws -> IdentityRepair {
        try await transaction(deadline: nil) { [logger] c in
            try await c.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLock))", logger: logger)
            func rows(_ query: PostgresQuery) async throws -> [IdentityRepair.Row] {
                try await c.query(query, logger: logger).collect().map { row in
                    let (id, text) = try row.decode((Int64, String).self)
                    return IdentityRepair.Row(id: id, text: text)
                }
            }
            let repair = IdentityRepair(
                users: try await rows("SELECT id, email FROM users"),
                displayNames: try await rows("SELECT id, display_name FROM users"),
                titles: try await rows("SELECT id, name FROM conversations WHERE name IS NOT NULL"))
            // Disabled first: their old emails then can't stand in the way of a normal form.
            for change in repair.disabled {
                try await c.query("DELETE FROM sessions WHERE user_id = \(change.id)", logger: logger)
                try await c.query("UPDATE users SET email = \(change.to) WHERE id = \(change.id)", logger: logger)
            }
            for change in repair.emails {
                try await c.query("UPDATE users SET email = \(change.to) WHERE id = \(change.id)", logger: logger)
            }
            for change in repair.names {
                try await c.query("UPDATE users SET display_name = \(change.to) WHERE id = \(change.id)", logger: logger)
            }
            for change in repair.titles {
                try await c.query("UPDATE conversations SET name = \(change.to) WHERE id = \(change.id)", logger: logger)
            }
            return repair
        }
    }
}
