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
    let tail = TailTimer(home: tailHome, server: tailServer, conversation: conversation, field: "localId")
    var latencies: [Double] = []
    var endToEnd: [Double] = []
    for i in 0..<200 {
        let localId = "latency-\(i)-\(UUID().uuidString)"
        let requested = now()
        _ = try! sender.send(conversationId: conversation, localId: localId, text: "latency probe \(i)")
        let acked = now()
        let deadline = acked + 5
        let seen = tail.printed(localId, until: deadline)
        // The tail can print before the sender has read its acknowledgement: both follow
        // the same commit. Such a message counts as delivered at once (0 ms).
        latencies.append(max(0, (seen ?? deadline) - acked) * 1000)
        endToEnd.append(((seen ?? deadline) - requested) * 1000)
        usleep(2_000)
    }
    tail.stop()
    return (latencies, endToEnd)
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

/// User plus system CPU time so far of every process named `postgres`: the bench's own
/// cluster (Tests/scripts/with-postgres.sh), whose backends live as long as the pools.
func postgresCPUSeconds() -> Double {
    let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { pid_t($0) } ?? []
    return pids.reduce(0) { sum, pid in
        let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
        return comm == "postgres\n" ? sum + cpuSeconds(of: pid) : sum
    }
}
