import BenchSupport
import Foundation
import NexusCore
#if canImport(Glibc)
import Glibc
#endif

// Ten thousand live tails (the scale target): one nexusd holds 10,000 long polls of
// GET /v1/sync, the request `tail -f` makes (FeedFollower), 10 for each of 1,000 users,
// and one message in a 1,000-member group reaches them all. 10,000 nexusctl processes
// would measure the machine, not nexusd, so the polls are raw sockets on one epoll thread
// of this process (TailPolls).
// A group takes 256 members by default, so this nexusd runs with --max-group-members 1000.
// NEXUS_BENCH_TAILS_GROUPS=4 splits the 1,000 users in 4 groups of 250 with 4 sends back to
// back, as before that flag (a nexusd without it can run only that shape): each poll's
// latency runs from its own message's acknowledgement to its answer.
// NEXUS_BENCH_TAILS_POLL=1: the load generator of before, on poll(2).

/// One run's figures.
struct TailsRun {
    var answered = 0, polls = 0, errors = 0, dropped = 0, early = 0
    var p50 = Double.nan, p99 = Double.nan, slowest = Double.nan
    var holdingMiB = Double.nan, peakMiB = Double.nan
    /// nexusd's CPU (user + system) from the first send until the last answer, or 10 s.
    var answerCPU = Double.nan
    var opened = Double.nan
    /// This process's own CPU over the same window (the load generator shares the cores).
    var benchCPU = Double.nan
    var ok: Bool { p99 <= 100 && peakMiB <= 512 && errors == 0 && dropped == 0 && early == 0 }
}

/// A nexusd of its own for the tails, from `binary` (the measured build or a "before" one).
private func startTailsServer(_ binary: String, db: String, groups: Int) -> (Spawned, String) {
    // Cheap password hashes: 1,000 registrations at the default cost would take minutes.
    // The default of 16 polls per user (ServerLimits.pollsPerUser) already takes 10 each.
    startServer(db: db, extra: ["--bcrypt-cost", "4"] + (groups == 1 ? ["--max-group-members", "1000"] : []), binary: binary)
}

/// This process's CPU (user + system), in seconds, to the microsecond.
private func ownCPU() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Three runs (NEXUS_BENCH_TAILS_RUNS), each row the median of its runs: the p99 of one
/// delivery moved from 84 to 120 ms between runs of one build on a shared machine.
/// NEXUS_BENCH_TAILS_BEFORE=<another nexusd>: that build too, by turns with the measured
/// one, as many runs each.
func liveTailsMeasures() {
    // 10,000 sockets here, and 10,000 in nexusd, which inherits this limit (it is per process).
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    guard limit.rlim_cur >= 10_500 else {
        report("10,000 live tails", "skipped: file-descriptor hard limit \(limit.rlim_max), needs 10,500 (ulimit -Hn)")
        return
    }
    let env = ProcessInfo.processInfo.environment
    let turns = max(1, Int(env["NEXUS_BENCH_TAILS_RUNS"] ?? "") ?? 3)
    let before = env["NEXUS_BENCH_TAILS_BEFORE"]
    var runs: [(before: TailsRun?, after: TailsRun)] = []
    for turn in 0..<turns {
        let b = before.map { liveTailsRun($0, db: work + "/tails-before-\(turn).sqlite") }
        let a = liveTailsRun(nexusd, db: work + "/tails-after-\(turn).sqlite")
        runs.append((b, a))
    }
    let of = turns > 1 ? "median of \(turns): " : ""
    if before != nil { reportTails(merged(runs.compactMap(\.before)), label: "before, " + of) }
    reportTails(merged(runs.map(\.after)), label: before == nil ? of : "after, " + of)
}

/// Times and CPU the median of the runs'; memory the largest, and errors, drops and early
/// answers those of all runs.
private func merged(_ side: [TailsRun]) -> TailsRun {
    func median(_ values: [Double]) -> Double { percentile(values, 50) }
    var m = TailsRun()
    m.answered = side.map(\.answered).min() ?? 0
    m.polls = side.first?.polls ?? 0
    m.errors = side.map(\.errors).reduce(0, +)
    m.dropped = side.map(\.dropped).reduce(0, +)
    m.early = side.map(\.early).reduce(0, +)
    m.p50 = median(side.map(\.p50)); m.p99 = median(side.map(\.p99)); m.slowest = median(side.map(\.slowest))
    m.holdingMiB = side.map(\.holdingMiB).max() ?? .nan; m.peakMiB = side.map(\.peakMiB).max() ?? .nan
    m.answerCPU = median(side.map(\.answerCPU)); m.opened = median(side.map(\.opened))
    m.benchCPU = median(side.map(\.benchCPU))
    return m
}

private func reportTails(_ r: TailsRun, label: String) {
    let shape = tailsGroups == 1 ? "one 1,000-member group" : "\(tailsGroups) groups of 250"
    report("10,000 live tails (1,000 users × 10, \(shape)), \(label)answered with the message", "\(r.answered) of \(r.polls)")
    report("  delivery ack → each poll's answer, p50", ms(r.p50))
    report("  delivery ack → each poll's answer, p99", ms(r.p99), target: "≤ 100 ms", ok: r.p99 <= 100)
    report("  slowest poll", ms(r.slowest))
    report("  nexusd CPU answering the 10,000 polls", String(format: "%.0f ms (%.0f µs a poll)", r.answerCPU * 1000, r.answerCPU * 1e6 / Double(max(1, r.polls))))
    report("  load generator's own CPU meanwhile (nexus-bench)", String(format: "%.0f ms", r.benchCPU * 1000))
    report("  nexusd RSS holding 10,000 polls", String(format: "%.0f MiB", r.holdingMiB))
    report("  nexusd peak RSS (VmHWM)", String(format: "%.0f MiB", r.peakMiB), target: "≤ 512 MiB", ok: r.peakMiB <= 512)
    report("  errors (no answer, or not 200) and dropped connections", "\(r.errors) errors, \(r.dropped) dropped, \(r.early) early",
           target: "0", ok: r.errors == 0 && r.dropped == 0 && r.early == 0)
}

/// NEXUS_BENCH_TAILS_GROUPS: 1 (one group of all 1,000 users) or 4 (groups of 250).
let tailsGroups = max(1, Int(ProcessInfo.processInfo.environment["NEXUS_BENCH_TAILS_GROUPS"] ?? "") ?? 1)

/// One run against a fresh nexusd from `binary`.
func liveTailsRun(_ binary: String, db: String) -> TailsRun {
    let users = 1000, pollsPerUser = 10
    let groupSize = (users - 1 + tailsGroups - 1) / tailsGroups
    let (tails, tailsURL) = startTailsServer(binary, db: db, groups: tailsGroups)
    let tailsAddress = try! ServerAddress(parsing: tailsURL)
    let setupStart = now()
    let shared = PerClient((0..<users).map { _ in NexusAPI(address: tailsAddress) })
    let apis = shared.value
    _ = runClients(8) { c in
        let apis = shared.value
        for u in stride(from: c, to: users, by: 8) {
            apis[u].token = try! apis[u].register(email: "tail\(u)@bench.example", password: "benchmark-password", displayName: "tail \(u)").token
        }
    }
    // User 0 sends, and is in every group; users 1...999 are split among the groups.
    let groups = stride(from: 1, to: users, by: groupSize).map { first in
        try! apis[0].createGroup(with: (first..<min(first + groupSize, users)).map { "tail\($0)@bench.example" }, name: "tails \(first)").conversation.id
    }
    // Each thread writes its own users' slots only.
    let cursors = UnsafeMutableBufferPointer<(Int64, String?)>.allocate(capacity: users)
    cursors.initialize(repeating: (0, nil))
    let slots = PerClient(cursors)
    _ = runClients(8) { c in
        let (apis, cursors) = (shared.value, slots.value)
        for u in stride(from: c, to: users, by: 8) {
            let head = try! apis[u].sync(after: nil, last: 0)
            cursors[u] = (head.cursor, head.cursorCheck)
        }
    }
    let requests = (0..<users * pollsPerUser).map { p -> String in
        let u = p / pollsPerUser
        let check = cursors[u].1.map { "&check=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? ""
        return "GET /v1/sync?after=\(cursors[u].0)\(check)&wait=60 HTTP/1.1\r\nHost: \(tailsAddress.host)\r\n"
            + "Authorization: Bearer \(apis[u].token!)\r\nAccept: application/json\r\n\r\n"
    }
    cursors.deallocate()
    FileHandle.standardError.write(Data(String(format: "  (1,000 users and %d groups in %.1f s)\n", groups.count, now() - setupStart).utf8))

    let openStart = now()
    let usePoll = ProcessInfo.processInfo.environment["NEXUS_BENCH_TAILS_POLL"] == "1"
    let polls = TailPolls(port: tailsAddress.port, requests: requests, usePoll: usePoll)
    let opened = now() - openStart
    // Settled: every poll read and waiting, which shows as nexusd's CPU going quiet. Counted
    // from the end of the opening (which took 46 s at load 28): a cap from its start let the
    // sends land while nexusd was still checking the polls' cursors.
    var cpu = cpuSeconds(of: tails.pid)
    let settleStart = now()
    repeat {
        usleep(1_000_000)
        let next = cpuSeconds(of: tails.pid)
        defer { cpu = next }
        if next - cpu < 0.05 { break }
    } while now() - settleStart < 120
    let early = polls.answered
    let holdingRSS = procStatusKiB(tails.pid, "VmRSS:")
    FileHandle.standardError.write(Data(String(format: "  (10,000 polls opened in %.1f s, settled after %.1f s; %d answered early)\n", opened, now() - openStart, early).utf8))

    var ackedAt: [Double] = []
    let renewed = polls.stopRearming()
    if renewed > 0 {
        FileHandle.standardError.write(Data("  (\(renewed) polls ran out their 60 s before the send and asked again)\n".utf8))
    }
    // NEXUS_BENCH_TAILS_PERF=FILE: nexusd's profile over the answers (perf record -g), for finding its costs.
    let profiler = ProcessInfo.processInfo.environment["NEXUS_BENCH_TAILS_PERF"].map { file -> Spawned in
        let perf = spawn("/usr/bin/perf", ["record", "-g", "-o", file, "-p", "\(tails.pid)", "--", "sleep", "2"], env: baseEnv)
        usleep(500_000)
        return perf
    }
    defer { profiler.map { _ = reap($0) } }
    let cpuBefore = cpuSeconds(of: tails.pid)
    let ownBefore = ownCPU()
    let sendStart = now()
    for (g, conversation) in groups.enumerated() {
        _ = try! apis[0].send(conversationId: conversation, localId: "tails-\(g)", text: "to every tail")
        ackedAt.append(now())
    }
    let deadline = now() + 10
    while polls.answered < requests.count && now() < deadline { usleep(10_000) }
    let (answeredAt, status, dropped) = polls.snapshot()
    let answerCPU = cpuSeconds(of: tails.pid) - cpuBefore
    let benchCPU = ownCPU() - ownBefore
    let peak = procStatusKiB(tails.pid, "VmHWM:")
    polls.close()
    stopServer(tails)
    // The 1,000 set-up clients' keep-alive connections close only now. Freed after their
    // last use (the send), they closed while nexusd answered, and it spent up to a tenth of
    // its time in the window taking 1,000 connections down.
    withExtendedLifetime(shared) {}

    var latencies: [Double] = []
    var errors = 0
    for p in 0..<requests.count {
        let u = p / pollsPerUser
        let group = u == 0 ? 0 : (u - 1) / groupSize
        // An answer before the first send carried no message: the poll did not hold.
        guard let t = answeredAt[p], status[p] == 200, t >= sendStart else { errors += 1; continue }
        latencies.append(max(0, t - ackedAt[group]) * 1000)
    }
    var run = TailsRun()
    run.answered = latencies.count; run.polls = requests.count
    run.errors = errors; run.dropped = dropped; run.early = early
    run.p50 = percentile(latencies, 50); run.p99 = percentile(latencies, 99); run.slowest = latencies.max() ?? .nan
    run.holdingMiB = holdingRSS / 1024; run.peakMiB = peak / 1024
    run.answerCPU = answerCPU; run.opened = opened; run.benchCPU = benchCPU
    FileHandle.standardError.write(Data(String(
        format: "  (%@%@: p50 %.0f ms, p99 %.0f ms, CPU %.0f ms, bench CPU %.0f ms, holding %.0f MiB, peak %.0f MiB, %d errors, %d dropped, load %@)\n",
        (binary as NSString).lastPathComponent, usePoll ? " (poll(2))" : "", run.p50, run.p99, answerCPU * 1000, benchCPU * 1000, run.holdingMiB, run.peakMiB, errors, dropped,
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")).utf8))
    return run
}
