import Foundation
import NexusCore
import Testing

/// nexusd as an operator meets it: how it says it can't start, what it logs while it runs
/// and when it stops, and what `--version` says. The real nexusd and nexusctl.
@Suite(.harness)
struct ServerLifeTests {
    @Test func aPortInUseIsSaidInOneLineWithExit1() throws {
        let server = try TestServer()
        defer { server.stop() }
        let database = try Backend.database(for: try makeTempDir("second"))
        let second = try runTool(Binaries.nexusd, ["--listen", "127.0.0.1:\(server.port)", "--db", database, "--log-level", "info"])
        #expect(second.code == 1)
        #expect(second.err == "nexusd: 127.0.0.1:\(server.port) is already in use (is another nexusd running?)\n")
    }

    @Test func aDatabaseInAFolderThatDoesNotExistStopsNexusdAndCreatesNothing() throws {
        let dir = try makeTempDir("nodb")
        let path = dir + "/mistyped/data/nexus.sqlite"
        // A nexusd that starts anyway would serve until stopped: it is given 30 s to exit.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.nexusd)
        process.arguments = ["--listen", "127.0.0.1:0", "--db", path]
        let out = LineCollector(), err = LineCollector()
        try launch(process, out: out, err: err)
        let exited = ends(process, within: 30)
        if !exited { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        #expect(exited && process.terminationStatus == 1, "still running, or exit \(process.terminationStatus)")
        #expect(err.wait { _ in err.text.contains("its folder \(dir)/mistyped/data does not exist") }, "stderr: \(err.text)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/mistyped"))
    }

    /// The default folder is still nexusd's to make, and private.
    @Test func theDefaultDataFolderIsCreated() throws {
        let xdg = try makeTempDir("xdg")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.nexusd)
        process.arguments = ["--listen", "127.0.0.1:0", "--bcrypt-cost", "4", "--log-level", "warning"]
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": xdg]) { $1 }
        let out = LineCollector(), err = LineCollector()
        try launch(process, out: out, err: err)
        #expect(out.value(after: "nexusd listening on ") != nil, "\(err.text)")
        process.terminate()
        #expect(ends(process, within: 30))
        let mode = try FileManager.default.attributesOfItem(atPath: xdg + "/nexusd")[.posixPermissions] as? Int
        #expect(mode == 0o700)
        #expect(FileManager.default.fileExists(atPath: xdg + "/nexusd/nexus.sqlite"))
    }

    @Test func eachRequestIsLoggedByItsRouteWithoutSecretsAndTheStopIsSaid() throws {
        let server = try TestServer(logLevel: "info")
        let (alice, bob) = try server.pair()
        let id = try alice.run(["new", bob.email, "--json"]).decode(DownloadLeftoverTests.Opened.self).conversation.id
        #expect(try alice.run(["send", String(id), "hello"]).code == 0)
        #expect(try alice.run(["history", String(id)]).code == 0)
        let token = try #require(try Profile(name: "default", home: alice.home).loadSession()).token
        let aliceId = try alice.api().me().id
        server.stop()

        let lines = server.log.lines
        let sends = lines.filter { $0.contains(" POST /v1/messages/batch 200 ") }
        #expect(sends.count == 1, "\(lines.joined(separator: "\n"))")
        #expect(sends.first?.hasSuffix("ms user=\(aliceId)") == true, "\(sends)")
        #expect(lines.contains { $0.contains(" GET /v1/conversations/{id}/messages 200 ") })
        #expect(lines.contains { $0.contains(" POST /v1/register ") })
        let text = server.log.text
        #expect(!text.contains(token) && !text.contains("password123") && !text.contains("/conversations/\(id)"))
        #expect(lines.last?.contains("nexusd stopped") == true, "\(lines.suffix(3))")
    }

    @Test func atWarningNoRequestIsLogged() throws {
        let server = try TestServer(logLevel: "warning")
        _ = try server.pair()
        server.stop()
        #expect(!server.log.text.contains("/v1/"), "\(server.log.text)")
    }

    /// One form for both, with the commit of the checkout they were built from, whichever
    /// way they were built (`make` or a plain `swift build`).
    @Test func bothVersionsNameTheCommit() throws {
        let ctl = try runTool(Binaries.nexusctl, ["--version"])
        let server = try runTool(Binaries.nexusd, ["--version"])
        let form = /^(nexusctl|nexusd) 0\.1\.0 \(([0-9a-f]{7,}[^)]*)\)\n$/
        let ctlCommit = try #require(ctl.out.wholeMatch(of: form), "nexusctl --version: \(ctl.out)").output.2
        let serverCommit = try #require(server.out.wholeMatch(of: form), "nexusd --version: \(server.out)").output.2
        #expect(ctlCommit == serverCommit)
        #expect(ctl.out.hasPrefix("nexusctl ") && server.out.hasPrefix("nexusd "))
        let head = try runTool("git", ["-C", Binaries.root, "rev-parse", "--short=12", "HEAD"])
        if head.code == 0 { #expect(ctlCommit.hasPrefix(head.out.trimmingCharacters(in: .whitespacesAndNewlines))) }
    }
}
