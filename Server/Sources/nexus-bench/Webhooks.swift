import BenchSupport
import Foundation
import NexusCore
#if canImport(Glibc)
import Glibc
#endif

/// The webhook rows, on a nexusd of their own (its incoming rate limit raised, so
/// the runs measure posting, not 429s): an incoming post by a new curl process against a
/// plain `nexusctl send` of the same run, and an outgoing delivery's latency from the
/// send's commit to the receiver's request, with the receiver in this process.
func webhookMeasures() {
    var env = baseEnv
    env["NEXUSD_HOOK_BURST"] = "1000000"
    let saved = baseEnv
    baseEnv = env
    let (hookServer, hookURL) = startServer(db: work + "/bench-hooks.sqlite")
    baseEnv = saved
    defer { stopServer(hookServer) }
    let (senderAPI, _, senderHome) = makeUser("hook-alice", server: hookURL)
    let (_, reader, _) = makeUser("hook-bob", server: hookURL)
    let conversation = try! senderAPI.openDirect(with: reader.email).conversation.id

    // Incoming: the whole request by a new curl process, beside a whole `nexusctl send`.
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") {
        let path = try! senderAPI.createHook(CreateHookRequest(conversationId: conversation, name: "bench-in")).path!
        var sendEnv = baseEnv
        sendEnv["NEXUS_HOME"] = senderHome
        sendEnv["NEXUS_SERVER"] = hookURL
        var curlMs: [Double] = [], sendMs: [Double] = []
        for _ in 0..<5 {  // interleaved, so both meet the same machine
            curlMs += timeCommand("/usr/bin/curl", ["-s", "-f", "-o", "/dev/null", "-d", "disk 95% full", hookURL + path], env: baseEnv, runs: 10).ms
            sendMs += timeCommand(nexusctl, ["send", String(conversation), "disk 95% full"], env: sendEnv, runs: 10).ms
        }
        let curl = percentile(curlMs, 50), send = percentile(sendMs, 50)
        report("incoming hook: curl -d, whole process (median)", ms(curl))
        report("incoming hook: curl against nexusctl send (\(ms(send)))", String(format: "%.2fx", curl / send), target: "≤ 1.5x",
               ok: curl / send <= 1.5)
    }

    // Outgoing: commit → the receiver's request.
    let receiver = BenchReceiver()
    _ = try! senderAPI.createHook(CreateHookRequest(conversationId: conversation, name: "bench-out", url: "http://127.0.0.1:\(receiver.port)/hook"))
    usleep(200_000)
    var acked: [Double] = [], requested: [Double] = []
    for i in 0..<300 {
        let localId = "wh-\(i)-\(UUID().uuidString.prefix(8))"
        let start = now()
        _ = try! senderAPI.send(conversationId: conversation, localId: localId, text: "delivery probe \(i)")
        let ack = now()
        let arrived = receiver.wait(for: localId, timeout: 5) ?? (ack + 5)
        // The receiver can be reached before the sender reads its answer: both follow the commit.
        acked.append(max(0, arrived - ack) * 1000)
        requested.append((arrived - start) * 1000)
    }
    let p50 = percentile(acked, 50), p99 = percentile(acked, 99)
    report("outgoing hook: send's ack → receiver's request, p50 (300 msgs)", ms(p50), target: "≤ 5 ms", ok: p50 <= 5)
    report("outgoing hook: send's ack → receiver's request, p99 (300 msgs)", ms(p99), target: "≤ 50 ms", ok: p99 <= 50)
    report("outgoing hook: send request → receiver's request, p50 (300 msgs)", ms(percentile(requested, 50)))
    report("outgoing hook: send request → receiver's request, p99 (300 msgs)", ms(percentile(requested, 99)))
}

/// A bare HTTP/1.1 receiver on a loopback port: notes when each delivery's request has
/// arrived whole (by the message's localId) and answers 200, keeping the connection.
final class BenchReceiver: @unchecked Sendable {
    private(set) var port: Int = 0
    private let lock = NSCondition()
    private var arrivals: [String: Double] = [:]
    private let listener: Int32

    init() {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = bind(listener, $0, size) } }
        listen(listener, 16)
        withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(listener, $0, &size) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 { return }
                Thread { self.serve(connection) }.start()
            }
        }.start()
    }

    private func serve(_ fd: Int32) {
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        let ok = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { close(fd); return }
            pending += buffer[0..<n]
            // Whole requests: headers, then Content-Length bytes of body.
            while let end = pending.firstRange(of: [13, 10, 13, 10]) {
                let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self).lowercased()
                let length = head.range(of: "content-length:").map { Int(head[$0.upperBound...].prefix { $0 != "\r" }.trimmingCharacters(in: .whitespaces)) ?? 0 } ?? 0
                guard pending.count >= end.upperBound + length else { break }
                let body = String(decoding: pending[end.upperBound..<(end.upperBound + length)], as: UTF8.self)
                pending.removeSubrange(..<(end.upperBound + length))
                let t = now()
                if let r = body.range(of: "\"localId\":\"") {
                    let id = String(body[r.upperBound...].prefix { $0 != "\"" })
                    lock.lock()
                    arrivals[id] = t
                    lock.broadcast()
                    lock.unlock()
                }
                _ = ok.withUnsafeBytes { write(fd, $0.baseAddress, ok.count) }
            }
        }
    }

    func wait(for localId: String, timeout: Double) -> Double? {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while arrivals[localId] == nil {
            if !lock.wait(until: deadline) { break }
        }
        return arrivals[localId]
    }
}
