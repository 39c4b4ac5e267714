import BenchSupport
import Foundation
import NexusCore
#if canImport(Glibc)
import Glibc
#endif

// MARK: attachments (NEXUS_BENCH_ONLY=attachments)

/// A 1 GiB file up and down over loopback, whole process (`nexusctl send --file`, hashing
/// included; `nexusctl download`, verified and synced), on a nexusd of its own with
/// `--max-attachment 2GiB` (SQLite; on PostgreSQL too when NEXUS_TEST_POSTGRES is set).
/// Peak RSS of both sides from the kernel (wait4), nexusd's over its whole life.
func attachmentMeasures() {
    let mib = Int(ProcessInfo.processInfo.environment["NEXUS_BENCH_ATTACHMENT_MIB"] ?? "") ?? 1024
    let size = Int64(mib) << 20
    let file = work + "/attachment.bin"
    writePatternFile(file, mib: mib)
    var backends: [(String, String)] = [("SQLite", work + "/attachments.sqlite")]
    if let postgres = ProcessInfo.processInfo.environment["NEXUS_TEST_POSTGRES"], !postgres.isEmpty {
        backends.append(("PostgreSQL", postgres))
    }
    for (backend, db) in backends {
        let (child, serverURL) = startServer(db: db, extra: ["--max-attachment", "2GiB"])
        let tag = backend.lowercased()
        let (api, _, home) = makeUser("files-a-\(tag)", server: serverURL)
        let (_, receiver, receiverHome) = makeUser("files-b-\(tag)", server: serverURL)
        let conversation = try! api.openDirect(with: receiver.email).conversation.id
        var env = baseEnv
        env["NEXUS_SERVER"] = serverURL
        env["NEXUS_HOME"] = home

        let up = timeCommand(nexusctl, ["send", String(conversation), "--file", file, "bench file"], env: env, runs: 1, peakOfTimedRun: true)
        let upRate = Double(size) / 1e6 / (up.ms[0] / 1000)
        let seq = try! api.messages(conversationId: conversation, limit: 1).messages.last!.seq
        env["NEXUS_HOME"] = receiverHome
        let out = work + "/downloaded-\(tag).bin"
        let down = timeCommand(nexusctl, ["download", "\(conversation)/\(seq)", "--out", out], env: env, runs: 1, peakOfTimedRun: true)
        let downRate = Double(size) / 1e6 / (down.ms[0] / 1000)
        unlink(out)
        // Read before it stops: its wait4 peak would start from nexus-bench's (Sources/nexus-peak).
        let serverRSS = procStatusKiB(child.pid, "VmHWM:")
        kill(child.pid, SIGTERM)
        _ = reap(child)
        if let fd = child.stdout { close(fd) }

        let gib = mib == 1024 ? "1 GiB" : "\(mib) MiB"
        report("attachment upload, \(gib), send --file (\(backend))", String(format: "%.0f MB/s (%.1f s)", upRate, up.ms[0] / 1000),
               target: "≥ 150 MB/s", ok: upRate >= 150)
        report("attachment download, \(gib), download (\(backend))", String(format: "%.0f MB/s (%.1f s)", downRate, down.ms[0] / 1000),
               target: "≥ 150 MB/s", ok: downRate >= 150)
        let clientMiB = Double(max(up.maxRSSKiB, down.maxRSSKiB)) / 1024
        report("attachment peak RSS, nexusctl (\(backend))", String(format: "%.1f MiB", clientMiB), target: "≤ 64 MiB", ok: clientMiB <= 64)
        let serverMiB = Double(serverRSS) / 1024
        report("attachment peak RSS, nexusd (\(backend))", String(format: "%.1f MiB", serverMiB), target: "≤ 64 MiB", ok: serverMiB <= 64)
    }
    unlink(file)
}

/// `mib` MiB of a fast pseudo-random pattern (no two MiB alike), synced.
func writePatternFile(_ path: String, mib: Int) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    precondition(fd >= 0, "can't write \(path)")
    var block = [UInt64](repeating: 0, count: (1 << 20) / 8)
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    for _ in 0..<mib {
        for i in block.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            block[i] = state
        }
        _ = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
    fsync(fd)
    close(fd)
}
