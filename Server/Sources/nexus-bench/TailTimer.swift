import BenchSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real `nexusctl tail -f --json` whose lines are timed as they arrive: when the line
/// whose `field` ("localId", "text") had a given value was printed. The delivery-latency
/// and streaming-send rows share it.
final class TailTimer: @unchecked Sendable {
    private let lock = NSLock()
    private var printedAt: [String: Double] = [:]
    private let tailer: Spawned

    /// Starts `nexusctl tail -f --json -n 0 [conversation]` and waits for it to settle into its long poll.
    init(home: String, server: String, conversation: Int64? = nil, field: String) {
        var env = baseEnv
        env["NEXUS_HOME"] = home
        env["NEXUS_SERVER"] = server
        tailer = spawn(nexusctl, ["tail", "-f", "--json", "-n", "0"] + (conversation.map { [String($0)] } ?? []), env: env, captureStdout: true)
        let marker = "\"\(field)\":\""
        let fd = tailer.stdout!
        Thread { [self] in
            var pending = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { return }
                let t = now()
                pending += buffer[0..<n]
                while let nl = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[..<nl], as: UTF8.self)
                    pending.removeSubrange(...nl)
                    if let r = line.range(of: marker) {
                        let value = String(line[r.upperBound...].prefix { $0 != "\"" })
                        lock.lock()
                        printedAt[value] = t
                        lock.unlock()
                    }
                }
            }
        }.start()
        usleep(500_000)
    }

    /// When the line with `value` was printed, waiting for it until `deadline` (in `now()` time).
    func printed(_ value: String, until deadline: Double, poll: useconds_t = 50) -> Double? {
        while true {
            lock.lock()
            let seen = printedAt[value]
            lock.unlock()
            if seen != nil || now() >= deadline { return seen }
            usleep(poll)
        }
    }

    func stop() {
        kill(tailer.pid, SIGTERM)
        _ = reap(tailer)
    }
}
