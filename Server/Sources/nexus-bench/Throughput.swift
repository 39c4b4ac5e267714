import BenchSupport
import Foundation
import NexusCore

/// Single durable sends from `senders` keep-alive clients at once, each into a direct
/// conversation of its own, 20,000 in all: messages a second, and nexusd's and this
/// process's CPU per message.
func singleSends(serverURL: String, pid: pid_t, senders: Int, label: String) -> (rate: Double, serverCPU: Double, generatorCPU: Double) {
    let perSender = 20_000 / senders
    var pairs: [(NexusAPI, Int64)] = []
    for s in 0..<senders {
        let pair = makePair("\(label)-sender\(senders)-\(s)", "\(label)-peer\(senders)-\(s)", server: serverURL)
        pairs.append((pair.api, pair.conversation))
    }
    let serverCPU0 = cpuSeconds(of: pid), selfCPU0 = cpuSeconds(of: getpid())
    let clients = pairs  // a constant the client threads share
    let seconds = runClients(senders) { s in
        let (api, conv) = clients[s]
        for i in 0..<perSender {
            _ = try! api.send(conversationId: conv, localId: "tp-\(s)-\(i)", text: "throughput \(i)")
        }
    }
    let total = Double(senders * perSender)
    return (total / seconds, (cpuSeconds(of: pid) - serverCPU0) / total * 1e6, (cpuSeconds(of: getpid()) - selfCPU0) / total * 1e6)
}

/// The single-send rows: 8 and 64 clients against the limit. With NEXUS_BENCH_BASELINE=1,
/// also a nexusd of the same build with `--bench-baseline` (the send path before issue 19),
/// or with NEXUS_BENCH_NEXUSD_BEFORE=<nexusd> that binary (main's, say), taking turns with
/// the current path, so the two are compared in one run; NEXUS_BENCH_ROUNDS=N takes N turns
/// each (default 1) and reports the medians, as a shared machine needs.
func throughputMeasures() -> Double {
    _ = limit()
    let environment = ProcessInfo.processInfo.environment
    let beforeBinary = environment["NEXUS_BENCH_NEXUSD_BEFORE"]
    let baseline: (Spawned, String)? =
        if let beforeBinary { startServer(db: work + "/bench-before.sqlite", binary: beforeBinary) }
        else if environment["NEXUS_BENCH_BASELINE"] == "1" { startServer(db: work + "/bench-baseline.sqlite", extra: ["--bench-baseline"]) }
        else { nil }
    let rounds = max(1, Int(environment["NEXUS_BENCH_ROUNDS"] ?? "") ?? 1)
    let beforeName = beforeBinary == nil ? "baseline (send path before issue 19)" : "before (NEXUS_BENCH_NEXUSD_BEFORE)"
    var rate8 = 0.0
    for senders in [8, 64] {
        var before: [(rate: Double, serverCPU: Double, generatorCPU: Double)] = []
        var after: [(rate: Double, serverCPU: Double, generatorCPU: Double)] = []
        for round in 0..<rounds {
            if let (child, baselineURL) = baseline {
                before.append(singleSends(serverURL: baselineURL, pid: child.pid, senders: senders, label: "baseline\(round)"))
                if rounds > 1 { FileHandle.standardError.write(Data("  round \(round + 1), \(senders) clients: before \(Int(before.last!.rate)) msg/s, \(Int(before.last!.serverCPU)) µs\n".utf8)) }
            }
            after.append(singleSends(serverURL: url, pid: server.pid, senders: senders, label: "current\(round)"))
            if rounds > 1 { FileHandle.standardError.write(Data("  round \(round + 1), \(senders) clients: after \(Int(after.last!.rate)) msg/s, \(Int(after.last!.serverCPU)) µs\n".utf8)) }
        }
        let median = { (values: [Double]) in percentile(values, 50) }
        let of = rounds > 1 ? " (median of \(rounds))" : ""
        if !before.isEmpty {
            report("  \(beforeName): nexusd CPU per message, \(senders) clients\(of)", String(format: "%.0f µs", median(before.map(\.serverCPU))))
            report("\(beforeName): single sends/s, \(senders) keep-alive clients, durable\(of)", ofLimit(median(before.map(\.rate))))
        }
        let rate = median(after.map(\.rate)), serverCPU = median(after.map(\.serverCPU))
        if senders == 8 { rate8 = rate }
        report("  nexusd CPU per message (\(senders) clients)\(of)", String(format: "%.0f µs", serverCPU), target: "≤ 60 µs", ok: serverCPU <= 60)
        report("  load generator CPU per message (\(senders) clients)\(of)", String(format: "%.0f µs", median(after.map(\.generatorCPU))))
        report("server: single sends/s, \(senders) keep-alive clients, durable\(of)", ofLimit(rate),
               target: "≥ 30% of the limit, ≥ 15,000", ok: rate >= 0.3 * limit() && rate >= 15_000)
        if !before.isEmpty {
            report("  after / before, \(senders) clients: msg/s, nexusd CPU a message\(of)",
                   String(format: "%.2f×, %.2f×", rate / median(before.map(\.rate)), serverCPU / median(before.map(\.serverCPU))))
        }
    }
    if let (child, _) = baseline { stopServer(child) }
    return rate8
}
