import BenchSupport
import Foundation
import NexusCore
#if canImport(Glibc)
import Glibc
#endif

/// The HTTPS rows, each beside the plain figure it is compared with: nexusd's
/// own TLS listener with a throwaway CA (Tests/scripts/make-test-certs.sh), and a plain
/// nexusd started beside it.
func httpsMeasures() {
    let certs = work + "/certs"
    let script = FileManager.default.currentDirectoryPath + "/Tests/scripts/make-test-certs.sh"
    _ = timeCommand("/bin/bash", [script, certs], env: baseEnv, runs: 1)
    let ca = certs + "/ca.pem"
    let (tlsServer, tlsURL) = startServer(db: work + "/bench-tls.sqlite", extra: ["--tls-cert", certs + "/server.pem", "--tls-key", certs + "/server.key"])
    defer { stopServer(tlsServer) }
    let tls = TLSOptions(caFile: ca)
    let (senderAPI, conversation, senderHome, readerHome) = makePair("tls-alice", "tls-bob", server: tlsURL, tls: tls)
    var env = baseEnv
    env["NEXUS_HOME"] = senderHome
    env["NEXUS_SERVER"] = tlsURL
    env["NEXUS_CACERT"] = ca

    func sessions() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: senderHome + "/default")) ?? []).filter { $0.hasPrefix("tls-session-") }
    }
    // The plain send it is compared with, by turns with each HTTPS send: measured apart,
    // minutes earlier, the two medians differed by more than the handshake on a shared machine.
    let (plainServer, plainURL) = startServer(db: work + "/bench-plain-turns.sqlite")
    defer { stopServer(plainServer) }
    let (plainAPI, plainConversation, plainHome, plainReaderHome) = makePair("plain-alice", "plain-bob", server: plainURL)
    var plainEnv = baseEnv
    plainEnv["NEXUS_HOME"] = plainHome
    plainEnv["NEXUS_SERVER"] = plainURL
    func plainSend() -> Double {
        timeCommand(nexusctl, ["send", String(plainConversation), "plain, by turns"], env: plainEnv, runs: 1).ms[0]
    }
    _ = plainSend()
    // A full handshake each time: no saved session.
    var first: [Double] = [], plainBesideFirst: [Double] = []
    func forgetSessions() {
        for file in sessions() { try? FileManager.default.removeItem(atPath: senderHome + "/default/" + file) }
    }
    for _ in 0..<15 {
        forgetSessions()
        first += timeCommand(nexusctl, ["send", String(conversation), "first over https"], env: env, runs: 1).ms
        plainBesideFirst.append(plainSend())
    }
    forgetSessions()
    let firstRSS = peakRSSKiB(nexusctl, ["send", String(conversation), "first over https"], env: env)
    var resumedMs: [Double] = [], plainBesideResumed: [Double] = []
    // 100 pairs: at 50 the ratio moved by ±0.04 from run to run on a shared machine.
    for _ in 0..<100 {
        resumedMs += timeCommand(nexusctl, ["send", String(conversation), "resumed over https"], env: env, runs: 1).ms
        plainBesideResumed.append(plainSend())
    }
    let resumedRSS = peakRSSKiB(nexusctl, ["send", String(conversation), "resumed over https"], env: env)
    let firstMedian = percentile(first, 50), resumedMedian = percentile(resumedMs, 50)
    let plainFirst = percentile(plainBesideFirst, 50), plain = percentile(plainBesideResumed, 50)
    report("  plain nexusctl send, by turns with the HTTPS sends below (median of 100)", ms(plain))
    report("HTTPS: nexusctl send, resumed session, whole process (median)", ms(resumedMedian) + String(format: " (%.2f× plain)", resumedMedian / plain),
           target: "≤ 1.5× plain send", ok: resumedMedian <= 1.5 * plain)
    report("HTTPS: nexusctl send, full handshake, whole process (median)", ms(firstMedian) + String(format: " (%.2f× plain)", firstMedian / plainFirst),
           target: "≤ 3× plain send", ok: firstMedian <= 3 * plainFirst)
    let peak = Double(max(firstRSS, resumedRSS)) / 1024
    report("HTTPS: nexusctl peak memory (send)", String(format: "%.1f MiB", peak), target: "≤ 40 MiB", ok: peak <= 40)

    // The delivery by turns with the same over plain HTTP, and the sends right after it: the
    // plain rows at the run's start, minutes earlier and before the attachments' gigabytes,
    // read a third of these in two whole runs, and met them in runs of this part alone.
    let plainRoute = DeliveryRoute(
        sender: plainAPI, conversation: plainConversation,
        tail: TailTimer(home: plainReaderHome, server: plainURL, conversation: plainConversation, field: "localId"))
    baseEnv["NEXUS_CACERT"] = ca
    let tlsRoute = DeliveryRoute(
        sender: senderAPI, conversation: conversation,
        tail: TailTimer(home: readerHome, server: tlsURL, conversation: conversation, field: "localId"))
    baseEnv["NEXUS_CACERT"] = nil
    let (plainLatencies, latencies) = deliveryLatenciesByTurns(plainRoute, tlsRoute)
    let p99 = percentile(latencies, 99), plainP99 = percentile(plainLatencies, 99)
    report("  plain delivery latency ack → tail -f prints, p99, by turns with HTTPS (200 msgs)", ms(plainP99))
    report("HTTPS: delivery latency ack → tail -f prints, p50 (200 msgs)", ms(percentile(latencies, 50)))
    report("HTTPS: delivery latency ack → tail -f prints, p99 (200 msgs)", ms(p99) + String(format: " (%.2f× plain)", p99 / plainP99),
           target: "≤ 2× plain p99", ok: p99 <= 2 * plainP99)

    // Eight threads, as the plain row (Throughput.swift).
    func rate(_ prefix: String, server: String, tls: TLSOptions) -> Double {
        let senders = 8, perSender = 1500
        let pairs = PerClient((0..<senders).map { s in
            let pair = makePair("\(prefix)-sender\(s)", "\(prefix)-peer\(s)", server: server, tls: tls)
            return (pair.api, pair.conversation)
        })
        let seconds = runClients(senders) { s in
            let (api, conv) = pairs.value[s]
            for i in 0..<perSender { _ = try! api.send(conversationId: conv, localId: "\(prefix)-\(s)-\(i)", text: "throughput \(i)") }
        }
        return Double(senders * perSender) / seconds
    }
    let plainRate = rate("plain", server: plainURL, tls: TLSOptions())
    let tlsRate = rate("tls", server: tlsURL, tls: tls)
    report("  plain single sends/s, 8 keep-alive clients, just before", String(format: "%.0f msg/s", plainRate))
    report("HTTPS: single sends/s, 8 keep-alive clients, durable", String(format: "%.0f msg/s (%.0f%% of plain)", tlsRate, tlsRate / plainRate * 100),
           target: "≥ 70% of plain", ok: tlsRate >= 0.7 * plainRate)
}
