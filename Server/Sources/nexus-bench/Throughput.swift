import BenchSupport
import Foundation
import NexusCore

/// Single durable sends from `senders` keep-alive clients at once, each into a direct
/// conversation of its own, 20,000 in all: messages a second, and nexusd's and this
/// process's CPU per message; and of nexusd's, its SQLite writer thread's, user and
/// system apart (nil from a nexusd whose writer thread has no name).
func singleSends(serverURL: String, pid: pid_t, senders: Int, label: String)
    -> (rate: Double, serverCPU: Double, generatorCPU: Double, writer: (user: Double, system: Double)?) {
    let perSender = 20_000 / senders
    var pairs: [(NexusAPI, Int64)] = []
    for s in 0..<senders {
        let pair = makePair("\(label)-sender\(senders)-\(s)", "\(label)-peer\(senders)-\(s)", server: serverURL)
        pairs.append((pair.api, pair.conversation))
    }
    let serverCPU0 = cpuSeconds(of: pid), selfCPU0 = cpuSeconds(of: getpid())
    let writer0 = threadCPUSeconds(of: pid, named: writerThread)
    let clients = PerClient(pairs)
    let seconds = runClients(senders) { s in
        let (api, conv) = clients.value[s]
        for i in 0..<perSender {
            _ = try! api.send(conversationId: conv, localId: "tp-\(s)-\(i)", text: "throughput \(i)")
        }
    }
    let total = Double(senders * perSender)
    var writer: (user: Double, system: Double)?
    if let writer0, let writer1 = threadCPUSeconds(of: pid, named: writerThread) {
        writer = ((writer1.user - writer0.user) / total * 1e6, (writer1.system - writer0.system) / total * 1e6)
    }
    return (total / seconds, (cpuSeconds(of: pid) - serverCPU0) / total * 1e6, (cpuSeconds(of: getpid()) - selfCPU0) / total * 1e6, writer)
}

/// nexusd's SQLite writer thread (SQLiteDatabase.writerThreadName).
private let writerThread = "sqlite-writer"

/// The single-send rows: 8 and 64 clients against the limit. With
/// NEXUS_BENCH_NEXUSD_BEFORE=<nexusd>, also that binary (an older build, say), taking turns with
/// the current path, so the two are compared in one run. NEXUS_BENCH_ROUNDS=N takes N turns
/// each (default 3) and reports the medians, as a shared machine needs: one turn at 8
/// clients read 28 to 35 % of the limit in three whole runs of one session.
///
/// Turns are fair: both servers are warmed alike, and they swap places every round. With
/// the "before" server cold and always first, the same binary in both places read 1.08x at
/// 8 clients (an A/A run, 2026-11-24). Each turn also measures the limit again, on its own
/// server just before the sends, and the row is the median of each turn's rate over its own
/// limit: the limit alone moved by 10 % between runs of that morning.
func throughputMeasures() {
    _ = limit()
    belowHummingbird()
    let environment = ProcessInfo.processInfo.environment
    let beforeBinary = environment["NEXUS_BENCH_NEXUSD_BEFORE"]
    let baseline: (Spawned, String)? = beforeBinary.map { startServer(db: work + "/bench-before.sqlite", binary: $0) }
    if let (_, baselineURL) = baseline { warmUp(url: baselineURL) }
    let rounds = max(1, Int(environment["NEXUS_BENCH_ROUNDS"] ?? "") ?? 3)
    let beforeName = "before (NEXUS_BENCH_NEXUSD_BEFORE)"
    for senders in [8, 64] {
        var before: [Turn] = []
        var after: [Turn] = []
        for round in 0..<rounds {
            func current() {
                after.append(turn(url: url, pid: server.pid, senders: senders, label: "current\(round)"))
                if rounds > 1 { note("  round \(round + 1), \(senders) clients: after", after.last!) }
            }
            guard let (child, baselineURL) = baseline else {
                current()
                continue
            }
            if round % 2 == 1 { current() }
            before.append(turn(url: baselineURL, pid: child.pid, senders: senders, label: "baseline\(round)"))
            if rounds > 1 { note("  round \(round + 1), \(senders) clients: before", before.last!) }
            if round % 2 == 0 { current() }
        }
        let median = { (values: [Double]) in percentile(values, 50) }
        let of = rounds > 1 ? " (median of \(rounds))" : ""
        let share = { (turns: [Turn]) in median(turns.map { $0.rate / $0.limit }) }
        func row(_ turns: [Turn]) -> String {
            String(format: "%.0f msg/s (%.1f%% of the limit)", median(turns.map(\.rate)), share(turns) * 100)
        }
        if !before.isEmpty {
            report("  \(beforeName): nexusd CPU per message, \(senders) clients\(of)", String(format: "%.0f µs", median(before.map(\.serverCPU))))
            report("\(beforeName): single sends/s, \(senders) keep-alive clients, durable\(of)", row(before))
        }
        let rate = median(after.map(\.rate)), serverCPU = median(after.map(\.serverCPU))
        report("  limit measured in each turn\(of)", String(format: "%.0f req/s", median(after.map(\.limit))))
        report("  nexusd CPU per message (\(senders) clients)\(of)", String(format: "%.0f µs", serverCPU), target: "≤ 60 µs", ok: serverCPU <= 60)
        let writers = after.compactMap(\.writer)
        if !writers.isEmpty {
            report("    of which its SQLite writer thread, user + kernel (\(senders) clients)\(of)",
                   String(format: "%.0f µs + %.0f µs", median(writers.map(\.user)), median(writers.map(\.system))))
        }
        report("  load generator CPU per message (\(senders) clients)\(of)", String(format: "%.0f µs", median(after.map(\.generatorCPU))))
        report("server: single sends/s, \(senders) keep-alive clients, durable\(of)", row(after),
               target: "≥ 30% of the limit, ≥ 15,000", ok: share(after) >= 0.3 && rate >= 15_000)
        if !before.isEmpty {
            // Each round's two turns against each other, then the median: a round that the
            // whole machine slowed down slows both of its turns.
            let rates = zip(after, before).map { $0.rate / $1.rate }, cpus = zip(after, before).map { $0.serverCPU / $1.serverCPU }
            report("  after / before, \(senders) clients: msg/s, nexusd CPU a message\(of)",
                   String(format: "%.2f×, %.2f× (rounds: %@)", median(rates), median(cpus), rates.map { String(format: "%.2f", $0) }.joined(separator: " ")))
        }
    }
    if let (child, _) = baseline { stopServer(child) }
}

private typealias Turn = (rate: Double, serverCPU: Double, generatorCPU: Double, writer: (user: Double, system: Double)?, limit: Double)

/// One turn on one server: its limit, then the single sends.
private func turn(url: String, pid: pid_t, senders: Int, label: String) -> Turn {
    let limit = limitRate(url: url, clients: 8, perClient: 2500)
    let sends = singleSends(serverURL: url, pid: pid, senders: senders, label: label)
    return (sends.rate, sends.serverCPU, sends.generatorCPU, sends.writer, limit)
}

/// The same requests as `limit()` sent the current server before any send: a "before"
/// server that starts cold was measured slower than the same binary warmed.
private func warmUp(url: String) {
    _ = limitRate(url: url, clients: 8, perClient: 500)
    _ = limitRate(url: url, clients: 8, perClient: 5000)
}

private func note(_ prefix: String, _ turn: Turn) {
    let line = "\(prefix) \(Int(turn.rate)) msg/s, \(Int(turn.serverCPU)) µs, limit \(Int(turn.limit)) req/s\n"
    FileHandle.standardError.write(Data(line.utf8))
}
