import BenchSupport
import Foundation
import NexusCore
#if canImport(Glibc)
import Glibc
#endif

/// `NEXUS_BENCH_ONLY=indexcost`: what the search index costs the send path. Two
/// nexusd of the same build on fresh SQLite databases, one with the index's triggers dropped
/// and its mark set past any id (sqlite3), so that nothing is indexed there, take the
/// single-send and batch-ingest loads of the rows above in alternating turns, so both see
/// the same noise. The cost is the median of each round's ratio of the two turns, which a
/// slow drift in the machine's load moves less than the ratio of medians.
///
/// The index is written behind the commit, when nexusd is idle. Each load waits until its
/// messages are indexed, and its CPU figure counts that work: otherwise the indexing a turn
/// leaves behind lands in the other server's turn, and which one pays for it depends on how
/// fast the rounds run: five rounds of 3,200 sends, ratio of medians, read from −2 to +45 %.
func searchIndexCostMeasures(rounds: Int = 15) {
    let sqlite3 = ProcessInfo.processInfo.environment["NEXUS_BENCH_SQLITE3"] ?? "/usr/bin/sqlite3"
    guard FileManager.default.isExecutableFile(atPath: sqlite3) else {
        report("search index cost", "skipped: no sqlite3 to drop the index with")
        return
    }
    let indexedDB = work + "/index-on.sqlite", bareDB = work + "/index-off.sqlite"
    // NEXUS_BENCH_INDEXCOST_ARGS: nexusd options for both, e.g. "--search-index-idle-ms 250".
    let extra = (ProcessInfo.processInfo.environment["NEXUS_BENCH_INDEXCOST_ARGS"] ?? "").split(separator: " ").map(String.init)
    let (indexed, indexedURL) = startServer(db: indexedDB, extra: extra)
    let (bare, bareURL) = startServer(db: bareDB, extra: extra)
    let drop = "DROP TRIGGER messages_fts_update; DROP TRIGGER messages_fts_delete; UPDATE search_indexed SET up_to = 9223372036854775807;"
    guard reap(spawn(sqlite3, ["-cmd", ".timeout 5000", bareDB, drop], env: baseEnv)).status == 0 else { fatalError("sqlite3 failed") }
    // To try a setting of the index on the indexed side (NEXUS_BENCH_INDEX_SQL="INSERT INTO
    // messages_fts(messages_fts, rank) VALUES ('automerge', 0)" and the like).
    if let sql = ProcessInfo.processInfo.environment["NEXUS_BENCH_INDEX_SQL"] {
        guard reap(spawn(sqlite3, ["-cmd", ".timeout 5000", indexedDB, sql], env: baseEnv)).status == 0 else { fatalError("sqlite3 failed") }
    }

    struct Side {
        let name: String
        let pid: pid_t
        let db: String
        var pairs: [(NexusAPI, Int64)] = []
        var single: [Double] = [], singleCPU: [Double] = []
        var batch: [Double] = [], batchCPU: [Double] = []
    }
    func side(_ name: String, _ server: Spawned, _ url: String, _ db: String) -> Side {
        var s = Side(name: name, pid: server.pid, db: db)
        for i in 0..<8 {
            let pair = makePair("\(name)-s\(i)", "\(name)-p\(i)", server: url)
            s.pairs.append((pair.api, pair.conversation))
        }
        return s
    }
    var sides = [side("ix", indexed, indexedURL, indexedDB), side("noix", bare, bareURL, bareDB)]
    let perSender = 800
    for round in 0..<rounds {
        // Alternate which goes first, so a trend in the machine's load favours neither.
        for k in (round % 2 == 0 ? [0, 1] : [1, 0]) {
            let pairs = sides[k].pairs, pid = sides[k].pid, db = sides[k].db
            var cpu0 = cpuSeconds(of: pid)
            let clients = PerClient(pairs)
            let seconds = runClients(pairs.count) { s in
                let (api, conv) = clients.value[s]
                for i in 0..<perSender {
                    _ = try! api.send(conversationId: conv, localId: "ic-\(round)-\(s)-\(i)", text: "throughput \(i)")
                }
            }
            let count = Double(pairs.count * perSender)
            sides[k].single.append(count / seconds)
            _ = waitForSearchIndex(db: db)
            sides[k].singleCPU.append((cpuSeconds(of: pid) - cpu0) / count * 1e6)
            // As batchIngestRate does, in fewer batches a round.
            let (api, conv) = pairs[0]
            cpu0 = cpuSeconds(of: pid)
            let start = now()
            for b in 0..<20 {
                _ = try! api.sendBatch((0..<500).map {
                    BatchItem(conversationId: conv, localId: "ib-\(round)-\(b)-\($0)", text: "batch ingest \($0)")
                })
            }
            sides[k].batch.append(20 * 500 / (now() - start))
            _ = waitForSearchIndex(db: db)
            sides[k].batchCPU.append((cpuSeconds(of: pid) - cpu0) / (20 * 500) * 1e6)
        }
    }
    let on = sides[0], off = sides[1]
    func row(_ what: String, _ a: [Double], _ b: [Double], unit: String, higherIsBetter: Bool) {
        let x = percentile(a, 50), y = percentile(b, 50)
        let cost = percentile(zip(a, b).map { higherIsBetter ? $1 / $0 : $0 / $1 }, 50)
        let figure = unit == "µs" ? "%.1f" : "%.0f"  // CPU rows of 16-18 µs: whole µs would hide a 6 % step
        report("  \(what): with index / without (medians of \(rounds))",
               String(format: "\(figure) / \(figure) %@ (index costs %+.1f %%, median of the rounds' ratios)", x, y, unit, (cost - 1) * 100),
               target: "≤ +10 %", ok: cost <= 1.10)
    }
    row("single sends/s, 8 clients", on.single, off.single, unit: "msg/s", higherIsBetter: true)
    row("  nexusd CPU a single send", on.singleCPU, off.singleCPU, unit: "µs", higherIsBetter: false)
    row("batch ingest, 500 a batch", on.batch, off.batch, unit: "msg/s", higherIsBetter: true)
    row("  nexusd CPU a batch-ingested message", on.batchCPU, off.batchCPU, unit: "µs", higherIsBetter: false)
    stopServer(indexed)
    stopServer(bare)
}

/// Waits until no message waits for the search index of the SQLite database `db` (read with
/// sqlite3); returns the seconds it took (0 without sqlite3).
func waitForSearchIndex(db: String) -> Double {
    let sqlite3 = ProcessInfo.processInfo.environment["NEXUS_BENCH_SQLITE3"] ?? "/usr/bin/sqlite3"
    guard FileManager.default.isExecutableFile(atPath: sqlite3) else { return 0 }
    let start = now()
    while now() - start < 600 {
        let child = spawn(sqlite3, ["-cmd", ".timeout 5000", db, "SELECT COUNT(*) FROM messages WHERE id > (SELECT up_to FROM search_indexed)"], env: baseEnv, captureStdout: true)
        var out = [UInt8](repeating: 0, count: 64)
        let n = read(child.stdout!, &out, out.count)
        close(child.stdout!)
        _ = reap(child)
        if n > 0, String(decoding: out[..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "0" { break }
        usleep(200_000)
    }
    return now() - start
}
