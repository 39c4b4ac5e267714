import BenchSupport
import Foundation
import NexusCore

/// Single durable sends on PostgreSQL: 8 keep-alive clients, 4 through each of two
/// replicas (`urls`, `pids`), each into a direct conversation of its own, three rounds, each
/// row their median (one round read 4,758 to 5,420 msg/s in three runs of one build). With
/// NEXUS_BENCH_NEXUSD_BEFORE=<nexusd> (an older build, say), a second pair of replicas of
/// that binary on the same database takes turns with the current pair, three rounds each,
/// so the two are compared in one run.
func postgresSingleSends(database: String, urls: [String], pids: [pid_t]) {
    let environment = ProcessInfo.processInfo.environment
    let beforeBinary = environment["NEXUS_BENCH_NEXUSD_BEFORE"]
    // NEXUS_BENCH_PG_CLIENTS: another number of clients, to split a message's cost from its group's.
    let clientCount = environment["NEXUS_BENCH_PG_CLIENTS"].flatMap(Int.init) ?? 8
    let compare = beforeBinary != nil
    var senders: [(NexusAPI, Int64)] = []
    for s in 0..<clientCount {
        let (api, _, _) = makeUser("pg-sender\(s)", server: urls[s % 2])
        let (_, peer, _) = makeUser("pg-peer\(s)", server: urls[0])
        senders.append((api, try! api.openDirect(with: peer.email).conversation.id))
    }
    var before: [(Spawned, String)] = []
    if compare {
        for _ in 0..<2 {
            before.append(startServer(db: database, binary: beforeBinary!))
        }
    }
    // NEXUS_BENCH_PG_SENDS: more sends a sender, for a profile long enough to read.
    let perSender = environment["NEXUS_BENCH_PG_SENDS"].flatMap(Int.init) ?? 500
    var round = 0
    /// Messages a second; CPU a message of the replicas, and of PostgreSQL, in µs.
    typealias Round = (rate: Double, cpu: Double, database: Double)
    func measure(_ urls: [String], _ pids: [pid_t]) -> Round {
        round += 1
        // The same users and conversations through these replicas; fresh localIds each round.
        let clients = PerClient(senders.enumerated().map { s, pair in
            (NexusAPI(addresses: [try! ServerAddress(parsing: urls[s % 2])], token: pair.0.token), pair.1)
        })
        let tag = round
        let cpu0 = pids.map { cpuSeconds(of: $0) }.reduce(0, +), database0 = postgresCPUSeconds()
        let seconds = runClients(clientCount) { s in
            let (api, conv) = clients.value[s]
            for i in 0..<perSender { _ = try! api.send(conversationId: conv, localId: "pg-tp\(tag)-\(s)-\(i)", text: "throughput \(i)") }
        }
        let cpu = (pids.map { cpuSeconds(of: $0) }.reduce(0, +) - cpu0) / Double(clientCount * perSender) * 1e6
        let database = (postgresCPUSeconds() - database0) / Double(clientCount * perSender) * 1e6
        return (Double(clientCount * perSender) / seconds, cpu, database)
    }
    var after: [Round] = [], baseline: [Round] = []
    let rounds = 3
    for _ in 0..<rounds {
        if compare {
            baseline.append(measure(before.map(\.1), before.map(\.0.pid)))
            FileHandle.standardError.write(Data(String(format: "  before: %.0f msg/s, %.0f µs, PostgreSQL %.0f µs\n",
                baseline.last!.rate, baseline.last!.cpu, baseline.last!.database).utf8))
        }
        after.append(measure(urls, pids))
        FileHandle.standardError.write(Data(String(format: "  after: %.0f msg/s, %.0f µs, PostgreSQL %.0f µs\n",
            after.last!.rate, after.last!.cpu, after.last!.database).utf8))
    }
    for (child, _) in before { stopServer(child) }
    let median = " (median of \(rounds))"
    if compare {
        let label = "before (\(beforeBinary!))"
        report("  \(label): PostgreSQL nexusd CPU per message (both replicas)\(median)",
               String(format: "%.0f µs", percentile(baseline.map(\.cpu), 50)))
        report("  \(label): PostgreSQL's own CPU per message\(median)", String(format: "%.0f µs", percentile(baseline.map(\.database), 50)))
        report("\(label): PostgreSQL single sends/s, 8 clients over two replicas\(median)", ofLimit(percentile(baseline.map(\.rate), 50)))
    }
    let rate = percentile(after.map(\.rate), 50)
    report("  PostgreSQL: nexusd CPU per message (both replicas)\(median)", String(format: "%.0f µs", percentile(after.map(\.cpu), 50)))
    report("  PostgreSQL: PostgreSQL's own CPU per message\(median)", String(format: "%.0f µs", percentile(after.map(\.database), 50)))
    report("PostgreSQL: single sends/s, 8 keep-alive clients over two replicas, durable\(median)", ofLimit(rate),
           target: "≥ 5,000 msg/s", ok: rate >= 5000)
}
