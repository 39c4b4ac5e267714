import Foundation
import Logging
import PostgresNIO
import Testing

@testable import NexusServer

/// The group's send statement is prepared on each connection (SendGroup), so PostgreSQL
/// may run it on a generic plan, made without the arrays' values. That plan must still
/// look each resend up through the (sender_id, local_id) key: written as a join, it
/// scanned the whole of `messages` for every group, and single sends ran at half the rate.
/// The senders' memberships are looked up by key as well.
@Suite(.timeLimit(.minutes(2)))
struct SendGroupPlanTests {
    @Test(.enabled(if: !(ProcessInfo.processInfo.environment["NEXUS_TEST_POSTGRES"] ?? "").isEmpty, "PostgreSQL only"))
    func theGenericPlanLooksResendsUpByTheirKey() async throws {
        let (config, cleanUp) = try testConfig(ServerLimits())
        defer { cleanUp() }
        let db = try await PostgresDatabase.open(url: config.databasePath, logger: Logger(label: "test"))
        do {
            try await db.migrate()
            let plan = try await db.primary.pool().client.withConnection { c in
                try await c.query("SET plan_cache_mode = force_generic_plan", logger: db.logger)
                try await c.query(PostgresQuery(unsafeSQL: "PREPARE send_group AS " + SendGroup.sql), logger: db.logger)
                let rows = try await c.query(
                    """
                    EXPLAIN EXECUTE send_group('{1}', '{1}', '{a}', ARRAY['\\x68'::bytea], '{0}', '{""}', '{1}', 0, 'nexus', '{n}')
                    """, logger: db.logger)
                var lines: [String] = []
                for try await row in rows { lines.append(try row.decode(String.self)) }
                return lines.joined(separator: "\n")
            }
            #expect(plan.contains("ANY ($7)"), "not the generic plan:\n\(plan)")
            #expect(plan.contains("Index Scan using messages_sender_id_local_id_key"), "\(plan)")
            #expect(!plan.contains("Seq Scan on messages"), "\(plan)")
            // Each sender's membership (the send endpoint's check) by the members' key too.
            #expect(plan.contains("Index Only Scan using members_") && !plan.contains("Seq Scan on members"), "\(plan)")
        } catch {
            try? await db.close()
            throw error
        }
        try await db.close()
    }
}
