import BenchSupport
import Foundation
import NexusCore
#if canImport(Glibc)
import Glibc
#endif

// nexus-soak: `make soak`. 200 real `nexusctl tail -f` processes, senders at a steady
// rate, and nexusd stopped (SIGTERM) and started again on the same database every minute.
// The bar: every tail prints every message of its conversation exactly once, and nexusd's
// memory, measured at the same point of each cycle, stays within 10% of the first cycle's.
// usage: nexus-soak NEXUSCTL NEXUSD WORKDIR
// SOAK_SECONDS (600), SOAK_TAILS (200), SOAK_SENDERS (10), SOAK_RATE (messages/s, 20),
// SOAK_RESTART_SECONDS (60).

let (nexusctl, nexusd, work) = toolArguments("nexus-soak")
let environment = ProcessInfo.processInfo.environment
func setting(_ name: String, _ fallback: Int) -> Int { environment[name].flatMap { Int($0) } ?? fallback }
let totalSeconds = setting("SOAK_SECONDS", 600)
let tailCount = setting("SOAK_TAILS", 200)
let senderCount = setting("SOAK_SENDERS", 10)
let rate = Double(setting("SOAK_RATE", 20))
let cycleSeconds = setting("SOAK_RESTART_SECONDS", 60)
/// When, in each cycle, memory is read: after the tails have all reconnected.
let settleSeconds = min(15, cycleSeconds / 2)

func log(_ text: String) { FileHandle.standardError.write(Data("soak: \(text)\n".utf8)) }
var baseEnv = environment
baseEnv["NO_COLOR"] = "1"

// MARK: nexusd

let dbPath = work + "/soak.sqlite"
var port = 0

func startServer() -> Spawned {
    let child = spawn(
        nexusd, ["--listen", "127.0.0.1:\(port)", "--db", dbPath, "--log-level", "error", "--bcrypt-cost", "4"],
        env: baseEnv, captureStdout: true)
    var line = [UInt8]()
    var byte: UInt8 = 0
    while read(child.stdout!, &byte, 1) == 1 && byte != 10 { line.append(byte) }
    let text = String(decoding: line, as: UTF8.self)
    guard text.hasPrefix("nexusd listening on "), let bound = Int(text.split(separator: ":").last ?? "") else {
        fatalError("nexusd did not start: \(text)")
    }
    port = bound
    return child
}

func stopServer(_ child: Spawned) {
    kill(child.pid, SIGTERM)
    _ = reap(child)
    if let fd = child.stdout { close(fd) }
}

/// Resident memory in KiB, from /proc.
func rssKiB(_ pid: pid_t) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

var server = startServer()
let url = "http://127.0.0.1:\(port)"
let address = try! ServerAddress(parsing: url)
log("nexusd at \(url); \(tailCount) tails, \(senderCount) senders at \(Int(rate)) msg/s, restart every \(cycleSeconds) s, \(totalSeconds) s")

// MARK: people: each tail is its own user in a direct conversation with one sender

func register(_ name: String) -> (NexusAPI, User, String) {
    let api = NexusAPI(address: address)
    let auth = try! api.register(email: "\(name)@soak.example", password: "soak-password", displayName: name)
    api.token = auth.token
    let home = work + "/home-\(name)"
    try! Profile(name: "default", home: home).saveSession(Session(server: url, token: auth.token, user: auth.user, createdAt: .now()))
    return (api, auth.user, home)
}

let senders = (0..<senderCount).map { register("sender\($0)") }
var tails: [(user: User, home: String, conversation: Int64, sender: Int)] = []
for n in 0..<tailCount {
    let (_, user, home) = register("tail\(n)")
    let sender = n % senderCount
    let conversation = try! senders[sender].0.openDirect(with: user.email).conversation.id
    tails.append((user, home, conversation, sender))
}

func startTail(_ n: Int) -> Spawned {
    var env = baseEnv
    env["NEXUS_HOME"] = tails[n].home
    env["NEXUS_SERVER"] = url
    return spawn(nexusctl, ["tail", "-f", "--json", "-n", "0"], env: env, stdoutPath: work + "/tail\(n).ndjson")
}
var tailProcesses = (0..<tailCount).map(startTail)
sleep(2)  // every tail into its first long poll before the first message

// MARK: senders: each keeps its own steady rate and retries a send until it is acknowledged

final class Tally: @unchecked Sendable {
    let lock = NSLock()
    var acknowledged: [Int64: Set<Int64>] = [:]  // conversation → message ids
    var sent = 0
    var retries = 0
    func record(_ message: Message, retried: Int) {
        lock.lock(); defer { lock.unlock() }
        acknowledged[message.conversationId, default: []].insert(message.id)
        sent += 1
        retries += retried
    }
}
let tally = Tally()
let stopSending = NSLock()
var sending = true
@Sendable func stillSending() -> Bool { stopSending.lock(); defer { stopSending.unlock() }; return sending }

let senderThreads = (0..<senderCount).map { k -> Thread in
    Thread {
        let api = senders[k].0
        let mine = tails.filter { $0.sender == k }.map(\.conversation)
        let interval = Double(senderCount) / rate
        let start = now()
        var n = 0
        while stillSending() {
            let due = start + Double(n) * interval
            let wait = due - now()
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
            let conversation = mine[n % mine.count]
            let localId = "s\(k)-\(n)"
            var retried = 0
            while true {
                do {
                    let reply = try api.send(conversationId: conversation, localId: localId, text: "soak \(localId)")
                    tally.record(reply.message, retried: retried)
                    break
                } catch {
                    // nexusd is restarting: the same localId again, so nothing is sent twice.
                    retried += 1
                    usleep(100_000)
                }
            }
            n += 1
        }
    }
}
senderThreads.forEach { $0.start() }

// MARK: restarts

struct Cycle { var startKiB: Int; var endKiB: Int; var restartMs: Double }
var cycles: [Cycle] = []
let soakStart = now()
while now() - soakStart < Double(totalSeconds) {
    let cycleStart = now()
    let remaining = Double(totalSeconds) - (cycleStart - soakStart)
    let length = min(Double(cycleSeconds), remaining)
    usleep(UInt32(min(Double(settleSeconds), length) * 1_000_000))
    let startKiB = rssKiB(server.pid)
    let rest = length - (now() - cycleStart)
    if rest > 0 { usleep(UInt32(rest * 1_000_000)) }
    let endKiB = rssKiB(server.pid)
    let down = now()
    stopServer(server)
    server = startServer()
    let restartMs = (now() - down) * 1000
    cycles.append(Cycle(startKiB: startKiB, endKiB: endKiB, restartMs: restartMs))
    log(String(format: "cycle %d: RSS %.1f MiB after %d s, %.1f MiB at the end; restarted in %.0f ms; %d sent",
               cycles.count, Double(startKiB) / 1024, settleSeconds, Double(endKiB) / 1024, restartMs, tally.sent))
}
stopSending.lock(); sending = false; stopSending.unlock()
while senderThreads.contains(where: { $0.isExecuting }) { usleep(50_000) }

// MARK: verdict: each tail printed exactly the messages of its conversation

func messageIds(_ n: Int) -> [Int64] {
    guard let text = try? String(contentsOfFile: work + "/tail\(n).ndjson", encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap { line in
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              object["type"] as? String == "message" else { return nil }
        return (object["id"] as? NSNumber)?.int64Value
    }
}

// The server's own record of each conversation, which also holds any message whose
// acknowledgement was lost to a restart.
func serverIds(_ tail: Int) -> Set<Int64> {
    let api = senders[tails[tail].sender].0
    var ids = Set<Int64>()
    var before: NexusAPI.Anchor? = nil
    while true {
        let page = try! api.messages(conversationId: tails[tail].conversation, before: before, limit: 500)
        ids.formUnion(page.messages.map(\.id))
        guard page.hasMore, let first = page.messages.first else { return ids }
        before = .seq(first.seq)
    }
}
let expected = (0..<tailCount).map(serverIds)
var lost = 0, repeated = 0, unacknowledgedMissing = 0
let deadline = now() + 60
var complete = false
while !complete && now() < deadline {
    complete = (0..<tailCount).allSatisfy { Set(messageIds($0)).isSuperset(of: expected[$0]) }
    if !complete { usleep(500_000) }
}
for pid in tailProcesses.map(\.pid) { kill(pid, SIGTERM) }
for child in tailProcesses { _ = reap(child) }
for n in 0..<tailCount {
    let ids = messageIds(n)
    lost += expected[n].subtracting(ids).count
    repeated += ids.count - Set(ids).count
    unacknowledgedMissing += (tally.acknowledged[tails[n].conversation] ?? []).subtracting(expected[n]).count
}
let finalKiB = rssKiB(server.pid)
stopServer(server)

// MARK: figures

let baseline = cycles.first?.startKiB ?? 0
let worst = cycles.map { Double($0.startKiB) / Double(max(baseline, 1)) }.max() ?? 1
let memoryOK = worst <= 1.10
let delivered = expected.map(\.count).reduce(0, +)
print("| figure | value |")
print("|---|---|")
print("| duration | \(totalSeconds) s, \(cycles.count) restarts of nexusd (SIGTERM, same database) |")
print("| tails | \(tailCount) `nexusctl tail -f --json` processes, one user each |")
print(String(format: "| sent | %d messages by %d senders at %.0f msg/s (%d resends after a refused connection) |", tally.sent, senderCount, rate, tally.retries))
print("| printed by the tails | \(delivered) messages expected, \(lost) lost, \(repeated) repeated |")
print("| acknowledged but not stored | \(unacknowledgedMissing) |")
print(String(format: "| nexusd RSS %d s into each cycle | %@ MiB |", settleSeconds,
             cycles.map { String(format: "%.1f", Double($0.startKiB) / 1024) }.joined(separator: ", ")))
print(String(format: "| nexusd RSS at each cycle's end | %@ MiB |",
             cycles.map { String(format: "%.1f", Double($0.endKiB) / 1024) }.joined(separator: ", ")))
print(String(format: "| worst cycle vs the first | %.1f%% (bar: within 10%%) |", (worst - 1) * 100))
print(String(format: "| restart (SIGTERM to listening again) | median %.0f ms, max %.0f ms |",
             percentile(cycles.map(\.restartMs), 50), cycles.map(\.restartMs).max() ?? 0))
print(String(format: "| nexusd RSS after the last restart, tails gone | %.1f MiB |", Double(finalKiB) / 1024))
let ok = lost == 0 && repeated == 0 && unacknowledgedMissing == 0 && memoryOK && complete && tally.sent > 0
print(ok ? "\nsoak: PASS" : "\nsoak: FAIL")
exit(ok ? 0 : 1)
