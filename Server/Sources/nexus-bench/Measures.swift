import BenchSupport
import Foundation
import NexusCore
#if canImport(Glibc)
import Glibc
#endif

// The longer measurements of main.swift, which uses them in order.

/// Sends 200 messages through `sender` while a real `tail -f --json` (of the profile in
/// `tailHome`, talking to `tailServer`) follows the conversation; returns each message's
/// latency from the send's acknowledgement, and from its request, to the line the tail printed (ms).
func deliveryLatencies(sender: NexusAPI, conversation: Int64, tailHome: String, tailServer: String) -> (acked: [Double], requested: [Double]) {
    let route = DeliveryRoute(sender: sender, conversation: conversation, tail: TailTimer(home: tailHome, server: tailServer, conversation: conversation, field: "localId"))
    defer { route.tail.stop() }
    var latencies: [Double] = []
    var endToEnd: [Double] = []
    for i in 0..<200 {
        let (acked, requested) = route.probe(i)
        latencies.append(acked)
        endToEnd.append(requested)
    }
    return (latencies, endToEnd)
}

/// Two routes' latencies from the acknowledgement (ms), 200 messages each, taking turns
/// message by message: a p99 of 200 is about its second-worst message, and two routes
/// measured one after the other saw different moments of a shared machine (the HTTPS row
/// read 0.81× and 2.01× its plain row in two whole runs of one build). Stops both tails.
func deliveryLatenciesByTurns(_ a: DeliveryRoute, _ b: DeliveryRoute) -> (a: [Double], b: [Double]) {
    var first: [Double] = []
    var second: [Double] = []
    for i in 0..<200 {
        first.append(a.probe(i).acked)
        second.append(b.probe(i).acked)
    }
    a.tail.stop()
    b.tail.stop()
    return (first, second)
}

/// A sender and a real tail that follows its conversation.
struct DeliveryRoute {
    let sender: NexusAPI
    let conversation: Int64
    let tail: TailTimer

    /// One message: its latency from the acknowledgement and from the request to the line the
    /// tail printed (ms).
    func probe(_ i: Int) -> (acked: Double, requested: Double) {
        let localId = "latency-\(i)-\(UUID().uuidString)"
        let requested = now()
        _ = try! sender.send(conversationId: conversation, localId: localId, text: "latency probe \(i)")
        let acked = now()
        let deadline = acked + 5
        let seen = tail.printed(localId, until: deadline)
        usleep(2_000)
        // The tail can print before the sender has read its acknowledgement: both follow
        // the same commit. Such a message counts as delivered at once (0 ms).
        return (max(0, (seen ?? deadline) - acked) * 1000, ((seen ?? deadline) - requested) * 1000)
    }
}

/// Messages a second that 40 batch sends of 500 store, one after another.
func batchIngestRate(_ api: NexusAPI, conversation: Int64, prefix: String) -> Double {
    let batches = 40, perBatch = 500
    let start = now()
    for b in 0..<batches {
        _ = try! api.sendBatch((0..<perBatch).map {
            BatchItem(conversationId: conversation, localId: "\(prefix)-\(b)-\($0)", text: "batch ingest \($0)")
        })
    }
    return Double(batches * perBatch) / (now() - start)
}

/// User plus system CPU time of a process so far, including its threads that have ended,
/// from the process's CPU-time clock, in nanoseconds: /proc's clock ticks are 10 ms, and a
/// row such as the batch ingest's CPU (about 0.17 s a round) moved 6 % a tick, more than
/// half of its +10 % target. Zero once the process is gone, as /proc gave.
func cpuSeconds(of pid: pid_t) -> Double {
    var clock = clockid_t()
    var time = timespec()
    guard clock_getcpuclockid(pid, &clock) == 0, clock_gettime(clock, &time) == 0 else { return 0 }
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// User and system CPU seconds so far of `pid`'s thread named `name` (nexusd's
/// "sqlite-writer"), in /proc's 10 ms ticks; nil when it has no such thread.
func threadCPUSeconds(of pid: pid_t, named name: String) -> (user: Double, system: Double)? {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    let hz = Double(sysconf(Int32(_SC_CLK_TCK)))
    for tid in tasks where (try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/comm", encoding: .utf8)) == name + "\n" {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/stat", encoding: .utf8),
              let nameEnd = stat.lastIndex(of: ")") else { continue }
        // After the name: the state (field 3) first, so utime (14) and stime (15) at 11 and 12.
        let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
        return (user / hz, system / hz)
    }
    return nil
}

/// User plus system CPU time so far of every process named `postgres`: the bench's own
/// cluster (Tests/scripts/with-postgres.sh), whose backends live as long as the pools.
func postgresCPUSeconds() -> Double {
    let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { pid_t($0) } ?? []
    return pids.reduce(0) { sum, pid in
        let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
        return comm == "postgres\n" ? sum + cpuSeconds(of: pid) : sum
    }
}
