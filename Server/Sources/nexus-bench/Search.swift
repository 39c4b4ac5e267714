import BenchSupport
import Foundation
import NexusCore

/// `NEXUS_BENCH_ONLY=search`: queries on the server over a million messages of
/// mixed words, the whole `nexusctl search` process, and the offline scan of a million
/// cached lines. NEXUS_BENCH_SEARCH_MESSAGES=N changes the million (for debug builds).
/// Run once on SQLite with every row, and once on PostgreSQL with the server's rows only
/// (the offline scan reads no server).
struct SearchBench {
    let nexusctl: String
    let baseEnv: [String: String]
    let url: String
    let report: (String, String, String, Bool?) -> Void
    var backend = "SQLite"
    /// The SQLite file whose lagging index is waited for after the fill; nil on PostgreSQL,
    /// whose index is written in the send's transaction.
    var sqlitePath: String? = work + "/bench.sqlite"
    var clientRows = true

    /// Message n's text: eight words of a 2,000-word vocabulary, spread so that a word is in
    /// about 0.4 % of messages and two given words together in a few hundred of a million.
    static func text(_ n: Int) -> String {
        var x = UInt64(n) &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<8).map { _ -> String in
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            return "w\(x % 2000)"
        }.joined(separator: " ")
    }

    func run(api: NexusAPI, conversation: Int64, home: String) {
        let total = Int(ProcessInfo.processInfo.environment["NEXUS_BENCH_SEARCH_MESSAGES"] ?? "") ?? 1_000_000
        let perBatch = 1000
        let fillStart = now()
        for b in 0..<(total / perBatch) {
            let batch = (0..<perBatch).map { BatchItem(conversationId: conversation, localId: "s-\(b)-\($0)", text: Self.text(b * perBatch + $0)) }
            // A batch answered 503 (past nexusd's database deadline on a loaded machine) is
            // sent again: idempotent by localId, as nexusctl's outbox would.
            for attempt in 1...5 {
                do {
                    _ = try api.sendBatch(batch)
                    break
                } catch {
                    precondition(attempt < 5, "batch \(b) failed 5 times: \(error)")
                    sleep(1)
                }
            }
        }
        FileHandle.standardError.write(Data(String(format: "  (filled %d messages in %.1f s)\n", total, now() - fillStart).utf8))
        // The index lags the commit on SQLite: measure once it caught up with the fill.
        if let sqlitePath {
            let caughtUp = waitForSearchIndex(db: sqlitePath)
            FileHandle.standardError.write(Data(String(format: "  (index caught up %.1f s after the fill)\n", caughtUp).utf8))
        }
        let label = total == 1_000_000 ? "1,000,000" : "\(total)"
        func median(_ query: String) -> Double {
            var filter = SearchFilter()
            filter.limit = 50
            return percentile((0..<30).map { _ in
                let t = now()
                _ = try! api.search(query, filter: filter)
                return (now() - t) * 1000
            }, 50)
        }
        let twoWords = median("w17 w42")
        report("server: search, two words, \(label) messages, \(backend) (median, with HTTP)", ms(twoWords), "≤ 20 ms", twoWords <= 20)
        let phrase = median(#""w17 w42""#)
        report("server: search, a phrase, \(backend) (median)", ms(phrase), "≤ 50 ms", phrase <= 50)
        let rare = median("w17 w42 w99")
        report("server: search, three words, \(backend) (median)", ms(rare), "", nil)
        guard clientRows else { return }

        var env = baseEnv
        env["NEXUS_HOME"] = home
        env["NEXUS_SERVER"] = url
        let online = timeCommand(nexusctl, ["search", "w17", "w42"], env: env, runs: 20)
        report("nexusctl search, whole process, online (median)", ms(percentile(online.ms, 50)), "≤ 30 ms", percentile(online.ms, 50) <= 30)

        writeCache(home: home, conversation: conversation, count: total) { Self.text(Int($0)) }
        let offline = timeCommand(nexusctl, ["search", "w17", "w42", "--offline"], env: env, runs: 5, peak: true)
        report("nexusctl search --offline, \(label) cached lines (median)", ms(percentile(offline.ms, 50)), "≤ 300 ms",
               percentile(offline.ms, 50) <= 300)
        report("  its peak memory", String(format: "%.1f MiB", Double(offline.maxRSSKiB!) / 1024), "≤ 40 MiB",
               Double(offline.maxRSSKiB!) / 1024 <= 40)
    }
}

/// A nexusd of its own on a new database of the PostgreSQL server `postgres`.
func startPostgresServer(_ postgres: String, database: String) -> (child: Spawned, url: String) {
    let psql = ProcessInfo.processInfo.environment["NEXUS_TEST_PSQL"] ?? "/usr/bin/psql"
    guard reap(spawn(psql, ["-q", postgres, "-c", "CREATE DATABASE \(database)"], env: baseEnv)).status == 0 else {
        fatalError("CREATE DATABASE \(database) failed")
    }
    var components = URLComponents(string: postgres)!
    components.path = "/" + database
    let (child, server) = startServer(db: components.string!)
    return (child, server)
}
