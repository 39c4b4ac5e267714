import BenchSupport
import Foundation
import NexusCore
#if canImport(Glibc)
import Glibc
#endif

// nexus-bench: the speed and memory figures of `make bench`, on loopback, from one run,
// so that ratios between rows are meaningful on a shared, noisy machine.
// usage: nexus-bench NEXUSCTL NEXUSD WORKDIR

let (nexusctl, nexusd, work) = toolArguments("nexus-bench")
var baseEnv = ProcessInfo.processInfo.environment
baseEnv["NO_COLOR"] = "1"


// MARK: server

/// nexusd-bench, beside nexusd: the same application with the limit's trivial routes
/// (BenchRoutes.swift), which the servers of this build's rows run.
let nexusdBench = (nexusd as NSString).deletingLastPathComponent + "/nexusd-bench"

func startServer(db: String, extra: [String] = [], binary: String = nexusdBench) -> (Spawned, String) {
    let child = spawn(binary, ["--listen", "127.0.0.1:0", "--db", db, "--log-level", "error"] + extra, env: baseEnv, captureStdout: true)
    var line = [UInt8]()
    var byte: UInt8 = 0
    while read(child.stdout!, &byte, 1) == 1 && byte != 10 { line.append(byte) }
    let text = String(decoding: line, as: UTF8.self)
    guard text.hasPrefix("nexusd listening on ") else { fatalError("nexusd did not start: \(text)") }
    return (child, String(text.dropFirst("nexusd listening on ".count)))
}

func stopServer(_ child: Spawned) {
    kill(child.pid, SIGTERM)
    _ = reap(child)
    if let fd = child.stdout { close(fd) }
}

let dbPath = work + "/bench.sqlite"
var (server, url) = startServer(db: dbPath)
let address = try! ServerAddress(parsing: url)

func makeUser(_ name: String, server: String? = nil, tls: TLSOptions = TLSOptions()) -> (NexusAPI, User, String) {
    let server = server ?? url
    let api = NexusAPI(addresses: [try! ServerAddress(parsing: server)], tls: tls)
    let auth = try! api.register(email: "\(name)@bench.example", password: "benchmark-password", displayName: name)
    api.token = auth.token
    // A profile for nexusctl with this session.
    let home = work + "/home-\(name)"
    let profile = Profile(name: "default", home: home)
    try! profile.saveSession(Session(server: server, token: auth.token, user: auth.user, createdAt: .now()))
    return (api, auth.user, home)
}

/// Two new users in a direct conversation: the first one's API, the conversation, and both
/// profiles' homes (for nexusctl as either side).
func makePair(
    _ sender: String, _ receiver: String, server: String? = nil, tls: TLSOptions = TLSOptions()
) -> (api: NexusAPI, conversation: Int64, senderHome: String, receiverHome: String) {
    let (api, _, senderHome) = makeUser(sender, server: server, tls: tls)
    let (_, peer, receiverHome) = makeUser(receiver, server: server, tls: tls)
    return (api, try! api.openDirect(with: peer.email).conversation.id, senderHome, receiverHome)
}

FileHandle.standardError.write(Data("nexus-bench: server at \(url)\n".utf8))
let (aliceAPI, _, aliceHome) = makeUser("alice")
let (bobAPI, bob, bobHome) = makeUser("bob")
let conversation = try! aliceAPI.openDirect(with: bob.email).conversation.id
_ = bobAPI

// NEXUS_BENCH_ONLY=throughput (or commands, outbox, indexcost, history, search, convos, replicas, changes, attachments, stream, dist, tails, chat) runs just that part, e.g. for profiling;
// NEXUS_BENCH_ONLY=https runs the HTTPS rows with the plain ones they are compared with;
// NEXUS_BENCH_ONLY=synchronous the synchronous-replication rows (Tests/scripts/failover-bench.sh).
// NEXUS_BENCH_NEXUSD_BEFORE=<nexusd> (an older build) takes turns with this one in the throughput rows (Throughput.swift)
// and the PostgreSQL single sends (PostgresSends.swift), so the two are compared in one run.
let only = ProcessInfo.processInfo.environment["NEXUS_BENCH_ONLY"]
/// NEXUS_BENCH_ONLY=history,convos runs several parts, in the order of a whole run, on one
/// server: a part that follows others meets the database they left (a million messages here;
/// one run took the list both ways: 21.39 ms after history, 23.14 ms alone).
let onlyParts = Set(only?.split(separator: ",").map(String.init) ?? [])
/// True when this run measures `part`: every part when NEXUS_BENCH_ONLY is unset.
func runs(_ part: String) -> Bool { only == nil || onlyParts.contains(part) }

// MARK: 1. whole-process commands
if runs("https") || runs("commands") {

var env = baseEnv
env["NEXUS_HOME"] = aliceHome
env["NEXUS_SERVER"] = url

if FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") {
    let curl = timeCommand("/usr/bin/curl", ["-s", "-o", "/dev/null", url + "/healthz"], env: env, runs: 30)
    report("curl, one loopback request (for scale)", ms(percentile(curl.ms, 50)))
}
let version = timeCommand(nexusctl, ["--version"], env: env, runs: 50, peak: true)
report("nexusctl --version, whole process (median)", ms(percentile(version.ms, 50)))
let send = timeCommand(nexusctl, ["send", String(conversation), "benchmark message"], env: env, runs: 50, peak: true)
report("nexusctl send, whole process (median)", ms(percentile(send.ms, 50)), target: "≤ 15 ms", ok: percentile(send.ms, 50) <= 15)
let tail = timeCommand(nexusctl, ["tail", String(conversation), "-n", "50", "--json"], env: env, runs: 20, peak: true)
let peakKiB = max(version.maxRSSKiB!, send.maxRSSKiB!, tail.maxRSSKiB!)
report("nexusctl peak memory (send, tail -n 50)", String(format: "%.1f MiB", Double(peakKiB) / 1024), target: "≤ 40 MiB",
       ok: Double(peakKiB) / 1024 <= 40)

// MARK: 2. delivery latency to a running tail -f

do {
    let (latencies, endToEnd) = deliveryLatencies(sender: aliceAPI, conversation: conversation, tailHome: bobHome, tailServer: url)
    let p50 = percentile(latencies, 50), p99 = percentile(latencies, 99)
    report("delivery latency ack → tail -f prints, p50 (200 msgs)", ms(p50), target: "≤ 5 ms", ok: p50 <= 5)
    report("delivery latency ack → tail -f prints, p99 (200 msgs)", ms(p99), target: "≤ 20 ms", ok: p99 <= 20)
    report("send request → tail -f prints, p50 (200 msgs)", ms(percentile(endToEnd, 50)))
    report("send request → tail -f prints, p99 (200 msgs)", ms(percentile(endToEnd, 99)))
}

}

// MARK: 1b. edit, delete and react against send (Changes.swift)
if runs("changes") {
    changeMeasures(url: url)
}


// MARK: 2b. send --each-line as a stream (StreamingSend.swift)

if runs("stream") {
    streamingSendMeasures(senderHome: aliceHome, tailHome: bobHome, recipientEmail: bob.email)
}

// MARK: 3. server throughput, keep-alive senders, durable commits, against the limit (Throughput.swift, Limit.swift)

if runs("throughput") {
    throughputMeasures()
}

// MARK: 4. the outbox: send while the server is down, flush of 10,000, batch ingest

if runs("outbox") {
    // A port nothing listens on: bind one, then close it.
    let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, len) } }
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(probe, $0, &len) } }
    close(probe)
    let (_, carol, carolHome) = makeUser("carol")
    let carolConversation = try! bobAPI.openDirect(with: carol.email).conversation.id
    var downEnv = baseEnv
    downEnv["NEXUS_HOME"] = carolHome
    // 10,030 queued messages are over the outbox's default cap of 10,000 ("Offline queue is
    // full", which refuses the whole stream): this profile's own config raises it.
    let configHome = carolHome + "/xdg"
    try! FileManager.default.createDirectory(atPath: configHome + "/nexus", withIntermediateDirectories: true)
    try! Data("queue-limit = 20000\n".utf8).write(to: URL(fileURLWithPath: configHome + "/nexus/config"))
    downEnv["XDG_CONFIG_HOME"] = configHome
    downEnv["NEXUS_SERVER"] = "http://127.0.0.1:\(UInt16(bigEndian: addr.sin_port))"
    let down = timeCommand(nexusctl, ["send", String(carolConversation), "while the server is down"], env: downEnv, runs: 30, expectStatus: 75)
    report("nexusctl send while the server is down (queue, exit 75), median", ms(percentile(down.ms, 50)), target: "≤ 15 ms",
           ok: percentile(down.ms, 50) <= 15)

    let lines = (1...10_000).map { "queued message \($0)" }.joined(separator: "\n") + "\n"
    _ = timeCommand(nexusctl, ["send", String(carolConversation), "--each-line"], env: downEnv, runs: 1, stdinText: lines, expectStatus: 75)
    var upEnv = downEnv
    upEnv["NEXUS_SERVER"] = url
    let flush = timeCommand(nexusctl, ["queue", "flush", "--now"], env: upEnv, runs: 1)
    report("nexusctl queue flush of 10,030 queued messages, wall", ms(flush.ms[0]), target: "≤ 2,000 ms", ok: flush.ms[0] <= 2000)

    let rate = batchIngestRate(aliceAPI, conversation: conversation, prefix: "batch")
    report("server: batch ingest, 500 a batch, one client, durable", ofLimit(rate), target: "≥ 20,000 msg/s",
           ok: rate >= 20_000)
}

// MARK: 4b. what the search index costs those two rows (SearchIndexCost.swift)
if runs("indexcost") { searchIndexCostMeasures() }

// MARK: 5. history: server pages from a million messages, offline history from a million cached (History.swift)

if runs("history") { historyMeasures() }

// MARK: 5b. search: Search.swift

if runs("search") {
    let (searchAPI, _, searchHome) = makeUser("sara")
    let (_, tom, _) = makeUser("tom")
    let searched = try! searchAPI.openDirect(with: tom.email).conversation.id
    SearchBench(nexusctl: nexusctl, baseEnv: baseEnv, url: url, report: { report($0, $1, target: $2, ok: $3) })
        .run(api: searchAPI, conversation: searched, home: searchHome)
}
if let postgres = ProcessInfo.processInfo.environment["NEXUS_TEST_POSTGRES"], runs("search") {
    let pgServer = startPostgresServer(postgres, database: "bench_search")
    let (searchAPI, _, searchHome) = makeUser("pg-sara", server: pgServer.url)
    let (_, tom, _) = makeUser("pg-tom", server: pgServer.url)
    let searched = try! searchAPI.openDirect(with: tom.email).conversation.id
    var bench = SearchBench(nexusctl: nexusctl, baseEnv: baseEnv, url: pgServer.url, report: { report($0, $1, target: $2, ok: $3) })
    (bench.backend, bench.sqlitePath, bench.clientRows) = ("PostgreSQL", nil, false)
    bench.run(api: searchAPI, conversation: searched, home: searchHome)
    stopServer(pgServer.child)
}

// MARK: 6. conversations: one user in 10,000 of them (ConversationLists.swift)

if runs("convos") { conversationListMeasures() }

// MARK: 7. replicas on PostgreSQL (bench.sh runs nexus-bench beside a throwaway cluster)

if let postgres = ProcessInfo.processInfo.environment["NEXUS_TEST_POSTGRES"], runs("replicas") {
    let psql = ProcessInfo.processInfo.environment["NEXUS_TEST_PSQL"] ?? "/usr/bin/psql"
    guard reap(spawn(psql, ["-q", postgres, "-c", "CREATE DATABASE bench"], env: baseEnv)).status == 0 else { fatalError("CREATE DATABASE failed") }
    var database = URLComponents(string: postgres)!
    database.path = "/bench"
    let (replicaA, urlA) = startServer(db: database.string!)
    let (replicaB, urlB) = startServer(db: database.string!)
    let (senderAPI, _, _) = makeUser("pg-alice", server: urlB)
    let (_, reader, readerHome) = makeUser("pg-bob", server: urlA)
    let pgConversation = try! senderAPI.openDirect(with: reader.email).conversation.id

    let (acked, _) = deliveryLatencies(sender: senderAPI, conversation: pgConversation, tailHome: readerHome, tailServer: urlA)
    let p50 = percentile(acked, 50), p99 = percentile(acked, 99)
    report("PostgreSQL: send through replica B → tail -f on A prints, p50 (200 msgs)", ms(p50), target: "≤ 10 ms", ok: p50 <= 10)
    report("PostgreSQL: send through replica B → tail -f on A prints, p99 (200 msgs)", ms(p99), target: "≤ 50 ms", ok: p99 <= 50)

    let rate = batchIngestRate(senderAPI, conversation: pgConversation, prefix: "pg-batch")
    report("PostgreSQL: batch ingest, 500 a batch, one client, durable", ofLimit(rate), target: "≥ 10,000 msg/s",
           ok: rate >= 10_000)

    // Single durable sends, 8 keep-alive clients, half through each replica (PostgresSends.swift).
    postgresSingleSends(database: database.string!, urls: [urlA, urlB], pids: [replicaA.pid, replicaB.pid])
    stopServer(replicaA)
    stopServer(replicaB)
}

// MARK: webhooks (Webhooks.swift; NEXUS_BENCH_ONLY=webhooks for these alone)

if runs("webhooks") { webhookMeasures() }

// MARK: nexusctl chat in a pseudo-terminal (Chat.swift; NEXUS_BENCH_ONLY=chat)
if runs("chat") {
    chatMeasures()
}

// MARK: 10,000 live tails (LiveTails.swift; NEXUS_BENCH_ONLY=tails)
if runs("tails") { liveTailsMeasures() }

// MARK: 7b. synchronous replication's cost (failover-bench.sh gives the databases; Synchronous.swift)

if onlyParts.contains("synchronous"), let syncDB = ProcessInfo.processInfo.environment["NEXUS_BENCH_SYNC_DB"],
   let asyncDB = ProcessInfo.processInfo.environment["NEXUS_BENCH_ASYNC_DB"] {
    synchronousMeasures(syncDB: syncDB, asyncDB: asyncDB)
}

// MARK: attachments (Attachments.swift)

if runs("attachments") {
    attachmentMeasures()
}

// MARK: 8. restart to ready

if only == nil {
    var times: [Double] = []
    for _ in 0..<10 {
        stopServer(server)
        let start = now()
        (server, url) = startServer(db: dbPath)
        let api = NexusAPI(address: try! ServerAddress(parsing: url))
        _ = try? api.users()  // first request answered (401 is an answer)
        times.append((now() - start) * 1000)
    }
    let median = percentile(times, 50)
    report("nexusd restart to ready (median of 10)", ms(median), target: "≤ 500 ms", ok: median <= 500)
}
stopServer(server)

// MARK: HTTPS, against the plain rows above (HTTPS.swift)

if runs("https") {
    httpsMeasures()
}

// MARK: make dist's static binaries and packages (Dist.swift)

if runs("dist") {
    distMeasures()
}

// MARK: table

printTable()
