import Foundation
import Testing

/// What a download leaves on disk: nothing after a kill -9 once the next download has run,
/// and no file name that reads as something else. Real nexusd, real nexusctl.
@Suite(.serialized, .harness)
struct DownloadLeftoverTests {
    struct Opened: Decodable {
        struct Conversation: Decodable { var id: Int64 }
        var conversation: Conversation
    }

    /// alice sends bob the file at `path` (its name as given); their conversation's id.
    func sent(_ path: String, on server: TestServer) throws -> (User, User, Int64) {
        let (alice, bob) = try server.pair()
        let id = try alice.run(["new", bob.email, "--json"]).decode(Opened.self).conversation.id
        let send = try alice.run(["send", String(id), "--file", path])
        #expect(send.code == 0, "\(send.err)")
        return (alice, bob, id)
    }

    func partFiles(in dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.contains(".part-") }
    }

    @Test func aDownloadKilledHalfWayLeavesNoPartFileOnceTheNextOneHasRun() throws {
        let server = try TestServer(extraArguments: ["--max-attachment", "1GiB"])
        defer { server.stop() }
        let dir = try makeTempDir("leftover")
        let source = dir + "/got.bin"
        var bytes = [UInt8](repeating: 0, count: 30 << 20)
        for i in stride(from: 0, to: bytes.count, by: 4096) { bytes[i] = UInt8(truncatingIfNeeded: i >> 12) }
        #expect(FileManager.default.createFile(atPath: source, contents: Data(bytes)))
        let (_, bob, id) = try sent(source, on: server)
        let into = try makeTempDir("into")
        let target = into + "/got.bin"

        // Through a slow link (8 MiB/s), so the download is surely under way when it is killed.
        let proxy = try FaultProxy(upstreamPort: server.port, downloadBytesPerSecond: 8 << 20)
        var slowBob = bob
        slowBob.server = proxy.url
        let (download, _, _) = try slowBob.spawn(["download", "\(id)/1", "--out", target])
        let part = into + "/.got.bin.part-\(download.processIdentifier)"
        func partSize() -> Int { ((try? FileManager.default.attributesOfItem(atPath: part))?[.size] as? Int) ?? 0 }
        let deadline = Date().addingTimeInterval(20)
        while partSize() < 2 << 20 && Date() < deadline { usleep(10_000) }
        kill(download.processIdentifier, SIGKILL)
        download.waitUntilExit()
        #expect(partSize() >= 2 << 20 && partSize() < 30 << 20, "the part file holds \(partSize()) bytes")

        let again = try bob.run(["download", "\(id)/1", "--out", target])
        #expect(again.code == 0, "\(again.err)")
        #expect(again.err.contains("removed \(part)"), "stderr: \(again.err)")
        #expect(again.err.contains("started over"), "stderr: \(again.err)")
        #expect(partFiles(in: into).isEmpty, "left behind: \(partFiles(in: into))")
        #expect(FileManager.default.contents(atPath: target) == Data(bytes))
    }

    @Test func aNameWithABidiOverrideIsSavedWithoutItAndTheRealNameIsSaid() throws {
        let server = try TestServer()
        defer { server.stop() }
        let dir = try makeTempDir("bidi")
        let name = "invoice\u{202E}fdp.exe"
        let source = dir + "/" + name
        #expect(FileManager.default.createFile(atPath: source, contents: Data("MZ".utf8)))
        let (_, bob, id) = try sent(source, on: server)
        let into = try makeTempDir("into")

        let process = bob.nexusctl(["download", "\(id)/1"])
        process.currentDirectoryURL = URL(fileURLWithPath: into)
        let saved = try runToEnd(process)
        #expect(saved.code == 0, "\(saved.err)")
        let names = try FileManager.default.contentsOfDirectory(atPath: into)
        #expect(names == ["invoice_fdp.exe"], "saved as \(names.map { $0.unicodeScalars.map { String($0.value, radix: 16) } })")
        #expect(saved.out == "invoice_fdp.exe\n")
        #expect(saved.err.contains("invoice\\u{202e}fdp.exe"), "stderr: \(saved.err)")
        #expect(!saved.err.unicodeScalars.contains("\u{202E}") && !saved.out.unicodeScalars.contains("\u{202E}"))
    }
}
