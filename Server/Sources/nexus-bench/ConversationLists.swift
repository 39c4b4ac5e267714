import BenchSupport
import Foundation
import NexusCore

/// `NEXUS_BENCH_ONLY=convos` (the list target): one user in 10,000 group conversations; the
/// server's list, whole, and `nexusctl convos` online and from the local cache.
func conversationListMeasures() {
    let (frankAPI, _, frankHome) = makeUser("frank")
    let pool = (0..<4).map { makeUser("pool\($0)").1.email }
    let fillStart = now()
    var ids: [Int64] = []
    for i in 0..<10_000 {
        ids.append(try! frankAPI.createGroup(with: [pool[i % 4], pool[(i + 1) % 4]], name: "group \(i)").conversation.id)
    }
    for chunk in stride(from: 0, to: ids.count, by: 1000) {
        _ = try! frankAPI.sendBatch(ids[chunk..<min(chunk + 1000, ids.count)].map {
            BatchItem(conversationId: $0, localId: "g\($0)", text: "hello group \($0)")
        })
    }
    FileHandle.standardError.write(Data(String(format: "  (10,000 groups in %.1f s)\n", now() - fillStart).utf8))
    // The search index lags the commit on SQLite: the list is measured once the groups'
    // messages are indexed, as the search rows are. After the search part's 1,000,000
    // messages that indexing ran through the list's measurement now and then, on the same
    // two cores, and the row read 25 ms instead of 11.
    let caughtUp = waitForSearchIndex(db: dbPath)
    FileHandle.standardError.write(Data(String(format: "  (index caught up %.1f s after the fill)\n", caughtUp).utf8))
    // The server's answer, whole, as bytes: decoding it is the client's cost, measured below.
    // NEXUS_BENCH_SERVER_BEFORE=<another nexusd>: that build too, on the same database file
    // (WAL lets both read it), asked by turns with this one, for a before and after in one run.
    let serverBefore = ProcessInfo.processInfo.environment["NEXUS_BENCH_SERVER_BEFORE"].map { startServer(db: dbPath, binary: $0) }
    func listTime(_ client: HTTPClient) -> Double {
        let t = now()
        let r = try! client.request("GET", "/v1/conversations", headers: [("Authorization", "Bearer \(frankAPI.token!)")])
        precondition(r.status == 200)
        return (now() - t) * 1000
    }
    let raw = HTTPClient(address: address)
    let rawBefore = serverBefore.map { HTTPClient(address: try! ServerAddress(parsing: $0.1)) }
    var listTimes: [Double] = [], beforeListTimes: [Double] = []
    for _ in 0..<(rawBefore == nil ? 10 : 15) {
        if let rawBefore { beforeListTimes.append(listTime(rawBefore)) }
        listTimes.append(listTime(raw))
    }
    let list = percentile(listTimes, 50)
    if rawBefore != nil {
        let before = percentile(beforeListTimes, 50)
        report("  before: server list of 10,000 conversations (median of \(beforeListTimes.count))", ms(before))
        report("  after / before", String(format: "%.2f×", list / before))
    }
    report("server: list of 10,000 conversations, whole answer (median of \(listTimes.count))", ms(list), target: "≤ 25 ms", ok: list <= 25)

    var frankEnv = baseEnv
    frankEnv["NEXUS_HOME"] = frankHome
    frankEnv["NEXUS_SERVER"] = url
    // NEXUS_BENCH_CTL_BEFORE=<another nexusctl>: that build too, run by turns with this one,
    // for a before and after in one run.
    let before = ProcessInfo.processInfo.environment["NEXUS_BENCH_CTL_BEFORE"]
    var onlineMs: [Double] = [], beforeMs: [Double] = []
    // 15 runs: on a shared host a process start swings by tens of ms from one minute to the
    // next (a median of 5 once read 59 ms, and 40 ms minutes later).
    for _ in 0..<15 {
        if let before {
            // The before client against the before server, when there is one: main as a whole.
            var env = frankEnv
            if let serverBefore { env["NEXUS_SERVER"] = serverBefore.1 }
            beforeMs += timeCommand(before, ["convos"], env: env, runs: 1).ms
        }
        onlineMs += timeCommand(nexusctl, ["convos"], env: frankEnv, runs: 1).ms
    }
    let online = percentile(onlineMs, 50)
    if before != nil {
        report("  before: nexusctl convos online, 10,000 rows (median of \(beforeMs.count))", ms(percentile(beforeMs, 50)))
    }
    report("nexusctl convos online, 10,000 rows (median of \(onlineMs.count))", ms(online), target: "≤ 60 ms", ok: online <= 60)
    if let serverBefore { stopServer(serverBefore.0) }
    frankEnv["NEXUS_SERVER"] = "http://127.0.0.1:9"
    let cached = timeCommand(nexusctl, ["convos"], env: frankEnv, runs: 10)
    report("nexusctl convos from the local cache, 10,000 rows (median of 10)", ms(percentile(cached.ms, 50)), target: "≤ 50 ms",
           ok: percentile(cached.ms, 50) <= 50)
}
