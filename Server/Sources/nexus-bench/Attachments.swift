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
/// NEXUS_BENCH_ATTACHMENT_RUNS=N: N runs, medians. NEXUS_BENCH_NEXUSD_BEFORE and
/// NEXUS_BENCH_CTL_BEFORE (both): that earlier build too, taking turns with this one.
func attachmentMeasures() {
    let environment = ProcessInfo.processInfo.environment
    let mib = Int(environment["NEXUS_BENCH_ATTACHMENT_MIB"] ?? "") ?? 1024
    let runs = max(1, Int(environment["NEXUS_BENCH_ATTACHMENT_RUNS"] ?? "") ?? 1)
    let size = Int64(mib) << 20
    let file = work + "/attachment.bin"
    writePatternFile(file, mib: mib)
    var backends: [(String, String)] = [("SQLite", work + "/attachments.sqlite")]
    if let postgres = environment["NEXUS_TEST_POSTGRES"], !postgres.isEmpty {
        backends.append(("PostgreSQL", postgres))
    }
    var builds = [AttachmentBuild(label: "", nexusd: nexusd, nexusctl: nexusctl)]
    if let d = environment["NEXUS_BENCH_NEXUSD_BEFORE"], let c = environment["NEXUS_BENCH_CTL_BEFORE"] {
        builds.append(AttachmentBuild(label: " before", nexusd: d, nexusctl: c))
    }
    let gib = mib == 1024 ? "1 GiB" : "\(mib) MiB"
    for (backend, db) in backends {
        var runsOf: [String: [AttachmentRun]] = [:]
        for round in 0..<runs {
            // Turns: the builds swap places every round, so neither always goes first.
            for build in round % 2 == 0 ? builds : builds.reversed() {
                let name = "\(backend.lowercased())-\(round)\(build.label.isEmpty ? "" : "-before")"
                runsOf[build.label, default: []].append(attachmentRun(build, db: db, file: file, size: size, name: name))
            }
        }
        for build in builds {
            let done = runsOf[build.label]!
            let up = percentile(done.map(\.upRate), 50)
            let down = percentile(done.map(\.downRate), 50)
            let tag = "\(backend)\(build.label)\(runs > 1 ? ", median of \(runs)" : "")"
            let seconds = { (rate: Double) in Double(size) / 1e6 / rate }
            report("attachment upload, \(gib), send --file (\(tag))", String(format: "%.0f MB/s (%.1f s)", up, seconds(up)),
                   target: "≥ 150 MB/s", ok: up >= 150)
            report("attachment download, \(gib), download (\(tag))", String(format: "%.0f MB/s (%.1f s)", down, seconds(down)),
                   target: "≥ 150 MB/s", ok: down >= 150)
            // Peaks: the largest of the runs, not their median.
            let peakTag = "\(backend)\(build.label)\(runs > 1 ? ", largest of \(runs)" : "")"
            let clientMiB = done.map(\.clientMiB).max()!
            report("attachment peak RSS, nexusctl (\(peakTag))", String(format: "%.1f MiB", clientMiB), target: "≤ 64 MiB", ok: clientMiB <= 64)
            let serverMiB = done.map(\.serverMiB).max()!
            report("attachment peak RSS, nexusd (\(peakTag))", String(format: "%.1f MiB", serverMiB), target: "≤ 64 MiB", ok: serverMiB <= 64)
        }
    }
    unlink(file)
}

struct AttachmentBuild {
    var label: String
    var nexusd: String
    var nexusctl: String
}

struct AttachmentRun {
    var upRate: Double
    var downRate: Double
    var clientMiB: Double
    var serverMiB: Double
}

/// One upload and one download of `file` by `build`, on a nexusd of its own, as users of
/// their own (`name`), so runs do not find each other's uploads.
func attachmentRun(_ build: AttachmentBuild, db: String, file: String, size: Int64, name: String) -> AttachmentRun {
    let (child, serverURL) = startServer(db: db, extra: ["--max-attachment", "2GiB"], binary: build.nexusd)
    let (api, conversation, home, receiverHome) = makePair("files-a-\(name)", "files-b-\(name)", server: serverURL)
    var env = baseEnv
    env["NEXUS_SERVER"] = serverURL
    env["NEXUS_HOME"] = home

    let up = timeCommand(build.nexusctl, ["send", String(conversation), "--file", file, "bench file"], env: env, runs: 1, peakOfTimedRun: true)
    let seq = try! api.messages(conversationId: conversation, limit: 1).messages.last!.seq
    env["NEXUS_HOME"] = receiverHome
    let out = work + "/downloaded-\(name).bin"
    let down = timeCommand(build.nexusctl, ["download", "\(conversation)/\(seq)", "--out", out], env: env, runs: 1, peakOfTimedRun: true)
    unlink(out)
    // Read before it stops: its wait4 peak would start from nexus-bench's (Sources/nexus-peak).
    let serverRSS = procStatusKiB(child.pid, "VmHWM:")
    kill(child.pid, SIGTERM)
    _ = reap(child)
    if let fd = child.stdout { close(fd) }
    return AttachmentRun(
        upRate: Double(size) / 1e6 / (up.ms[0] / 1000), downRate: Double(size) / 1e6 / (down.ms[0] / 1000),
        clientMiB: Double(max(up.maxRSSKiB!, down.maxRSSKiB!)) / 1024, serverMiB: Double(serverRSS) / 1024)
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
