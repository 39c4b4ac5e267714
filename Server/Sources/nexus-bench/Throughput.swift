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
        let (api, _, _) = makeUser("\(label)-sender\(senders)-\(s)", server: serverURL)
        let (_, peer, _) = makeUser("\(label)-peer\(senders)-\(s)", server: serverURL)
        pairs.append((api, try! api.openDirect(with: peer.email).conversation.id))
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
/// taking turns with the current path, so the two are compared in one run.
func throughputMeasures() -> Double {
    _ = limit()
    let baseline = ProcessInfo.processInfo.environment["NEXUS_BENCH_BASELINE"] == "1"
        ? startServer(db: work + "/bench-baseline.sqlite", extra: ["--bench-baseline"]) : nil
    var rate8 = 0.0
    for senders in [8, 64] {
        if let (child, baselineURL) = baseline {
            let before = singleSends(serverURL: baselineURL, pid: child.pid, senders: senders, label: "baseline")
            report("  baseline (send path before issue 19): nexusd CPU per message, \(senders) clients", String(format: "%.0f µs", before.serverCPU))
            report("baseline: single sends/s, \(senders) keep-alive clients, durable", ofLimit(before.rate))
        }
        let after = singleSends(serverURL: url, pid: server.pid, senders: senders, label: "current")
        if senders == 8 { rate8 = after.rate }
        report("  nexusd CPU per message (\(senders) clients)", String(format: "%.0f µs", after.serverCPU), target: "≤ 60 µs",
               ok: after.serverCPU <= 60)
        report("  load generator CPU per message (\(senders) clients)", String(format: "%.0f µs", after.generatorCPU))
        report("server: single sends/s, \(senders) keep-alive clients, durable", ofLimit(after.rate),
               target: "≥ 30% of the limit, ≥ 15,000", ok: after.rate >= 0.3 * limit() && after.rate >= 15_000)
    }
    if let (child, _) = baseline { stopServer(child) }
    return rate8
}
