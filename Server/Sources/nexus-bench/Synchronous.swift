import BenchSupport
import Foundation
import NexusCore

/// Synchronous replication's cost, in the same run as the asynchronous figures it
/// is compared with: Tests/scripts/failover-bench.sh starts a pg_auto_failover primary and
/// standby and gives two databases on it, NEXUS_BENCH_SYNC_DB (every commit waits for the
/// standby's flush, as pg_auto_failover sets it) and NEXUS_BENCH_ASYNC_DB (the same server
/// with `synchronous_commit = local`: acknowledged once on the primary's disk).
/// NEXUS_BENCH_ONLY=synchronous.
func synchronousMeasures(syncDB: String, asyncDB: String) {
    var figures: [String: (batch: Double, single: Double)] = [:]
    for (label, db) in [("asynchronous", asyncDB), ("synchronous", syncDB)] {
        let (server, serverURL) = startServer(db: db)
        let (api, _, _) = makeUser("\(label)-alice", server: serverURL)
        let (_, peer, _) = makeUser("\(label)-bob", server: serverURL)
        let conversation = try! api.openDirect(with: peer.email).conversation.id
        let batch = batchIngestRate(api, conversation: conversation, prefix: "\(label)-batch")

        let senders = 8, perSender = 500
        var pairs: [(NexusAPI, Int64)] = []
        for s in 0..<senders {
            let (sender, _, _) = makeUser("\(label)-sender\(s)", server: serverURL)
            let (_, other, _) = makeUser("\(label)-peer\(s)", server: serverURL)
            pairs.append((sender, try! sender.openDirect(with: other.email).conversation.id))
        }
        let clients = PerClient(pairs)
        let seconds = runClients(senders) { s in
            let (sender, conv) = clients.value[s]
            for i in 0..<perSender { _ = try! sender.send(conversationId: conv, localId: "\(label)-\(s)-\(i)", text: "single \(i)") }
        }
        let single = Double(senders * perSender) / seconds
        stopServer(server)
        figures[label] = (batch, single)
    }
    let a = figures["asynchronous"]!, s = figures["synchronous"]!
    report("PostgreSQL primary + standby: batch ingest, 500 a batch, asynchronous (local flush)", String(format: "%.0f msg/s", a.batch))
    report("PostgreSQL primary + standby: batch ingest, 500 a batch, synchronous (standby flushed)",
           String(format: "%.0f msg/s (%.0f%%)", s.batch, s.batch / a.batch * 100))
    report("PostgreSQL primary + standby: single sends/s, 8 keep-alive clients, asynchronous", String(format: "%.0f msg/s", a.single))
    report("PostgreSQL primary + standby: single sends/s, 8 keep-alive clients, synchronous",
           String(format: "%.0f msg/s (%.0f%%)", s.single, s.single / a.single * 100))
}
