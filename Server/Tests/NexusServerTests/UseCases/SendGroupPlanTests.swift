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
    @Test(.enabled(if: onPostgres, "PostgreSQL only"))
    func theGenericPlanLooksResendsUpByTheirKey() async throws {
        try await withMigratedPostgres { db in
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
        }
    }

    /// In `plan_cache_mode = auto` PostgreSQL made a custom plan for every single send's
    /// group, a quarter of its CPU in the bench. The batcher's own connection always takes
    /// the generic plan, and the pool's connections keep `auto` for everything else.
    @Test(.enabled(if: onPostgres, "PostgreSQL only"))
    func singleSendsRunOnTheGenericPlanAndNothingElseDoes() async throws {
        try await withMigratedPostgres { db in
            let store = PostgresMessageStore(db: db)
            // One after another, so each is a group of one; no such conversation, so nothing is stored.
            for n in 0..<8 {
                let outcome = try await store.send([NewMessage(conversationId: 1_000_000, senderId: 1, localId: "plan-\(n)", text: "hi")])
                guard case .notMember = outcome.first else { Issue.record("stored: \(outcome)"); break }
            }
            let pool = try await db.primary.pool()
            let plans = try await pool.sends.withConnection { c in
                try await c.query("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%unnest($1::bigint[]%'",
                    logger: db.logger).collect().map { try $0.decode((Int64, Int64).self) }
            }
            #expect(plans.count == 1 && plans[0].0 == 8 && plans[0].1 == 0, "generic, custom: \(plans)")
            let elsewhere = try await pool.client.query("SHOW plan_cache_mode", logger: db.logger).collect().first?.decode(String.self)
            #expect(elsewhere == "auto")
        }
    }

    /// The last query of each of this database's sends' connections (pg_stat_activity).
    private static func sendsConnections(_ db: NexusServer.PostgresDatabase) async throws -> [String] {
        try await db.primary.pool().client.query(
            "SELECT query FROM pg_stat_activity WHERE application_name = 'nexusd sends' AND datname = current_database()",
            logger: db.logger
        ).collect().map { try $0.decode(String.self) }
    }

    /// A pool closed the sends' connection after a minute without sends, so a cron job's
    /// send connected and prepared the statement again: 13-14 ms against 2. The connection
    /// (SendsConnection) opens at start, before any send, and stays open through idle time.
    @Test(.enabled(if: onPostgres, "PostgreSQL only"))
    func theSendsConnectionIsOpenBeforeAnySend() async throws {
        try await withMigratedPostgres { db in
            var open = 0
            for _ in 0..<200 where open == 0 {
                open = try await Self.sendsConnections(db).count
                if open == 0 { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(open == 1, "the sends' connections open with no send yet: \(open)")
        }
    }

    /// PostgresNIO's keep-alive, a timer a group, is not used on the sends' connection; the
    /// pool asks that connection `SELECT 1` itself once it has been idle for the period.
    @Test(.enabled(if: onPostgres, "PostgreSQL only"))
    func theSendsConnectionIsAskedSomethingWhenIdle() async throws {
        try await withMigratedPostgres(keepAlive: .milliseconds(300)) { db in
            var last = ""
            for _ in 0..<100 where last != "SELECT 1" {
                try await Task.sleep(for: .milliseconds(50))
                last = try await Self.sendsConnections(db).first ?? ""
            }
            #expect(last == "SELECT 1", "the idle sends' connection's last query after 5 s: '\(last)'")
        }
    }
}
