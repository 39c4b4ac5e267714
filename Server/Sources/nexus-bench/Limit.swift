import BenchSupport
import Foundation
import NexusCore

// The limit row: the same load generator against nexusd's bench-only trivial
// route (nexusd-bench, BenchRoutes.swift), so every throughput row can say what
// fraction of what Hummingbird and this machine can do it reaches, in the same run.

/// Runs `body(client)` on `count` threads at once, each its own keep-alive client, and
/// returns the wall time. DispatchQueue.concurrentPerform would run only as many at once
/// as there are cores (2 here), not `count`.
func runClients(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> Double {
    let done = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    for c in 0..<count {
        let thread = Thread {
            go.wait()
            body(c)
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    let start = now()
    for _ in 0..<count { go.signal() }
    for _ in 0..<count { done.wait() }
    return now() - start
}

/// What the threads of `runClients` share: each thread uses only its own elements (its
/// client, its slots), so nothing is used from two threads at once, which the compiler
/// cannot see.
struct PerClient<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// nexusd-bench's two trivial routes (BenchRoutes.swift): Hummingbird's, and
/// the same answer from below it, which needs `--bench-below-hummingbird` too.
let limitPath = "/bench/limit", belowHummingbirdPath = "/bench/limit-nio"

/// Requests a second the trivial route answers: each client posts a send's body and
/// decodes a send's answer, as NexusAPI.send does.
func limitRate(url: String, clients: Int, perClient: Int, path: String = limitPath) -> Double {
    let address = try! ServerAddress(parsing: url)
    let body = Array(try! JSONEncoder().encode(SendRequest(localId: "tp-0-0", text: "throughput 0")))
    let seconds = runClients(clients) { _ in
        let http = HTTPClient(address: address)
        let decoder = JSONDecoder()
        for _ in 0..<perClient {
            let response = try! http.request("POST", path, headers: [("Authorization", "Bearer bench")], body: body)
            precondition(response.status == 201, "the limit route answered \(response.status): is the server nexusd-bench?")
            _ = try! decoder.decode(SendResponse.self, from: Data(response.body))
        }
    }
    return Double(clients * perClient) / seconds
}

/// `limitRate` with 8 clients, and the CPU that nexusd (`pid`) spent a request meanwhile (µs).
func limitRateAndCPU(url: String, pid: pid_t, perClient: Int, path: String = limitPath) -> (rate: Double, cpu: Double) {
    let cpu0 = cpuSeconds(of: pid)
    let rate = limitRate(url: url, clients: 8, perClient: perClient, path: path)
    return (rate, (cpuSeconds(of: pid) - cpu0) / Double(8 * perClient) * 1e6)
}

/// The limit of this run, measured once, with 8 clients (as the single-send row).
nonisolated(unsafe) var measuredLimit: Double?

func limit() -> Double {
    if let measuredLimit { return measuredLimit }
    _ = limitRate(url: url, clients: 8, perClient: 500)  // warm up
    let (rate, cpu) = limitRateAndCPU(url: url, pid: server.pid, perClient: 5000)
    measuredLimit = rate
    report("limit: trivial Hummingbird route, same load generator, 8 keep-alive clients", String(format: "%.0f req/s", rate))
    report("  nexusd CPU per request of the limit route", String(format: "%.0f µs", cpu))
    return rate
}

/// How much of the limit route's cost is Hummingbird's own: the limit route, and the same
/// answer from a handler in the connection's pipeline below Hummingbird (`/bench/limit-nio`),
/// by turns on a nexusd of their own (that handler sees every request, so the other rows'
/// nexusd goes without it). The 60 µs a message target is weighed against it
/// (docs/benchmarks.md).
func belowHummingbird() {
    let rounds = 3
    let (child, url) = startServer(db: work + "/bench-below.sqlite", extra: ["--bench-below-hummingbird"])
    defer { stopServer(child) }
    for path in [limitPath, belowHummingbirdPath] {
        _ = limitRate(url: url, clients: 8, perClient: 2500, path: path)  // warm up
    }
    var routed: [(rate: Double, cpu: Double)] = [], below: [(rate: Double, cpu: Double)] = []
    for _ in 0..<rounds {
        routed.append(limitRateAndCPU(url: url, pid: child.pid, perClient: 2500))
        below.append(limitRateAndCPU(url: url, pid: child.pid, perClient: 2500, path: belowHummingbirdPath))
    }
    let median = { (values: [Double]) in percentile(values, 50) }
    let of = "(median of \(rounds))"
    report("  limit route, by turns with the row below \(of)",
           String(format: "%.0f req/s, nexusd %.1f µs a request", median(routed.map(\.rate)), median(routed.map(\.cpu))))
    report("  the same answer from a handler below Hummingbird \(of)",
           String(format: "%.0f req/s, nexusd %.1f µs a request", median(below.map(\.rate)), median(below.map(\.cpu))))
    report("  Hummingbird's own part of the limit route's CPU \(of)",
           String(format: "%.1f µs a request", median(zip(routed, below).map { $0.cpu - $1.cpu })))
}

/// A throughput figure with its fraction of the limit.
func ofLimit(_ rate: Double, unit: String = "msg/s") -> String {
    String(format: "%.0f %@ (%.1f%% of the limit)", rate, unit, rate / limit() * 100)
}
