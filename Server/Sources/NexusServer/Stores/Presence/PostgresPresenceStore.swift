import NexusWire
import PostgresNIO

/// Leases in the shared database, so a `tail -f` held on one replica keeps its user
/// online for readers on every other; each replica renews its own in one statement a second.
struct PostgresPresenceStore: PresenceStore {
    let db: PostgresDatabase

    func renew(_ leases: [PresenceLease], grace: Int64) async throws {
        guard !leases.isEmpty else { return }
        // Duplicates in one statement would make ON CONFLICT touch a row twice.
        var unique: [String: PresenceLease] = [:]
        for l in leases {
            let key = "\(l.user) \(l.client)"
            unique[key] = unique[key].map { PresenceLease.merged($0, l, grace: grace) } ?? l
        }
        let rows = Array(unique.values)
        _ = try await db.rows(
            """
            INSERT INTO presence_leases (user_id, client, polling, renewed_at, expires_at, ended)
            SELECT u, c, p, a, e, false
            FROM unnest(\(rows.map(\.user))::bigint[], \(rows.map(\.client))::text[], \(rows.map(\.polling))::boolean[],
                        \(rows.map(\.at.milliseconds))::bigint[], \(rows.map(\.until.milliseconds))::bigint[]) AS v(u, c, p, a, e)
            ON CONFLICT (user_id, client) DO UPDATE SET
                renewed_at = GREATEST(presence_leases.renewed_at, EXCLUDED.renewed_at),
                expires_at = CASE
                    WHEN EXCLUDED.polling AND NOT presence_leases.polling THEN EXCLUDED.expires_at
                    WHEN presence_leases.polling AND NOT EXCLUDED.polling
                        THEN GREATEST(presence_leases.expires_at, EXCLUDED.renewed_at + \(grace))
                    ELSE GREATEST(presence_leases.expires_at, EXCLUDED.expires_at) END,
                polling = presence_leases.polling OR EXCLUDED.polling
            WHERE NOT presence_leases.ended
            """)
    }

    func end(user: Int64, client: String, at: Timestamp) async throws {
        _ = try await db.rows(
            """
            INSERT INTO presence_leases (user_id, client, polling, renewed_at, expires_at, ended)
            VALUES (\(user), \(client), true, \(at.milliseconds), \(at.milliseconds), true)
            ON CONFLICT (user_id, client) DO UPDATE SET
                renewed_at = GREATEST(presence_leases.renewed_at, EXCLUDED.renewed_at), expires_at = EXCLUDED.expires_at, ended = true
            """)
    }

    func held() async throws -> [Int64: HeldPresence] {
        var out: [Int64: HeldPresence] = [:]
        for row in try await db.rows("SELECT user_id, max(expires_at) AS until, max(renewed_at) AS at FROM presence_leases GROUP BY user_id") {
            guard let user = try row.int("user_id"), let until = try row.int("until"), let at = try row.int("at") else { continue }
            out[user] = HeldPresence(until: Timestamp(milliseconds: until), lastAt: Timestamp(milliseconds: at))
        }
        return out
    }

    func sweep(before: Timestamp) async throws -> [Int64: Timestamp] {
        var out: [Int64: Timestamp] = [:]
        for row in try await db.rows(
            "DELETE FROM presence_leases WHERE expires_at < \(before.milliseconds) RETURNING user_id, renewed_at")
        {
            guard let user = try row.int("user_id"), let at = try row.int("renewed_at") else { continue }
            out[user] = max(out[user] ?? Timestamp(milliseconds: at), Timestamp(milliseconds: at))
        }
        return out
    }
}
