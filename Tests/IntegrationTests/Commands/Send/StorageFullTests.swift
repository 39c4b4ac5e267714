import Foundation
import Testing

/// A full disk under nexusd: the sender reads "the server is out of storage" and
/// the message stays queued (exit 75), /healthz says so, and once space returns the queue
/// goes out with no restart, each message once. The SQLite file sits on a 4 MiB tmpfs the
/// test mounts (it needs root, as `make test` under CI has). On PostgreSQL the same 503
/// comes from SQLSTATE 53100 (disk_full); that path is not exercised here.
@Suite(.harness)
struct StorageFullTests {
    @Test func aFullDiskIsSaidPlainlyKeepsTheMessageAndHealsWithoutARestart() throws {
        guard Backend.postgres == nil else { return }
        guard getuid() == 0 else {
            Issue.record("mounting a tmpfs needs root; run as root (CI does)")
            return
        }
        let mountPoint = try makeTempDir("full")
        let mounted = try runTool("/bin/mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint])
        try #require(mounted.code == 0, "mount: \(mounted.err)")
        defer { _ = try? runTool("/bin/umount", ["-l", mountPoint]) }

        let server = try TestServer(database: mountPoint + "/nexus.sqlite")
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "before"]).code == 0)

        let filler = mountPoint + "/filler"
        _ = try runTool("/bin/dd", ["if=/dev/zero", "of=\(filler)", "bs=64k"])  // until ENOSPC
        let full = try alice.run(["send", bob.email, "while full"])
        #expect(full.code == 75, "\(full.out) \(full.err)")
        #expect(full.err.contains("the server is out of storage"), "\(full.err)")
        let health = try runTool("/usr/bin/curl", ["-s", "-w", " %{http_code}", server.url + "/healthz"])
        #expect(health.out == #"{"status":"storage_full"} 503"#, "\(health.out)")
        let queue = try alice.run(["queue"])
        #expect(queue.out.contains("while full") && queue.out.contains("out of storage"), "\(queue.out)")

        try FileManager.default.removeItem(atPath: filler)
        let flush = try alice.run(["queue", "flush", "--now"])
        #expect(flush.code == 0, "\(flush.err)")
        #expect(flush.out.contains("sent 1"), "\(flush.out)")
        #expect(try alice.run(["send", bob.email, "after"]).code == 0)
        #expect(try bob.serverMessages().map(\.text) == ["before", "while full", "after"])
    }
}
