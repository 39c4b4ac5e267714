import Foundation
@testable import NexusCore
import Testing

/// Where attachment bytes end: a delete drops the blob once no other message of
/// the sender names it, and uploads no message refers to are cleaned up after
/// `--upload-cleanup-after`. Real nexusd (SQLite or PostgreSQL), real nexusctl.
@Suite(.harness)
struct AttachmentLifecycleTests {
    func setUp(_ extra: [String] = []) throws -> (TestServer, User, User, Int64) {
        let server = try TestServer(extraArguments: extra)
        let (alice, bob) = try server.pair()
        let id = try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id
        return (server, alice, bob, id)
    }

    /// A file of `bytes` bytes made of `seed`, so files of different seeds differ.
    func makeFile(_ dir: String, _ name: String, seed: String, bytes: Int = 300_000) throws -> (path: String, sha256: String) {
        let path = dir + "/" + name
        let line = Array((seed + "\n").utf8)
        let block = Data((0..<(1 << 16)).map { line[$0 % line.count] })
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        var left = bytes
        while left > 0 {
            try handle.write(contentsOf: block.prefix(left))
            left -= min(left, block.count)
        }
        try handle.close()
        return (path, try LocalFile.measure(path).sha256)
    }

    /// The bytes the server stores for `sha256`, read under it (not through it): the files
    /// in the blob folder beside a SQLite database, the upload_chunks rows on PostgreSQL.
    func storedBytes(_ sha256: String, _ server: TestServer) throws -> Int {
        if Backend.postgres == nil {
            let folder = server.databasePath + "-blobs"
            let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
            return try files.filter { ($0 as NSString).lastPathComponent.hasPrefix(sha256) }.reduce(0) { sum, file in
                sum + ((try FileManager.default.attributesOfItem(atPath: folder + "/" + file)[.size] as? Int) ?? 0)
            }
        }
        let psql = ProcessInfo.processInfo.environment["NEXUS_TEST_PSQL"] ?? "psql"
        let r = try runTool(psql, [
            "-tA", server.databasePath, "-c",
            "SELECT COALESCE(SUM(length(data)), 0) FROM upload_chunks WHERE sha256 = '\(sha256)'",
        ])
        guard r.code == 0, let n = Int(r.out.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw HarnessError("psql: \(r.err)") }
        return n
    }

    /// Whether the server still has alice's upload of `sha256` (its API answers 404 once gone).
    func hasUpload(_ api: NexusAPI, _ sha256: String) -> Bool {
        do {
            _ = try api.uploadState(sha256: sha256)
            return true
        } catch {
            return error.status != 404
        }
    }

    @Test func deletingAMessageDropsItsBlobOnceNoOtherMessageNamesIt() throws {
        let (server, alice, bob, c) = try setUp()
        defer { server.stop() }
        let dir = try makeTempDir("blobs")
        let shared = try makeFile(dir, "shared.log", seed: "shared \(UUID())")
        let own = try makeFile(dir, "own.log", seed: "own \(UUID())")
        for (file, text) in [(shared.path, "first"), (shared.path, "second"), (own.path, "third")] {
            let sent = try alice.run(["send", "\(c)", "--file", file, text])
            #expect(sent.code == 0, "\(sent.err)")
        }
        let api = try alice.api()
        #expect(try storedBytes(shared.sha256, server) == 300_000)
        #expect(try storedBytes(own.sha256, server) == 300_000)
        // Bob downloads one, so his client has seen the attachment.
        #expect(try bob.run(["download", "\(c)/3", "--out", dir + "/got.log"]).code == 0)

        #expect(try alice.run(["delete", "\(c)/3"]).code == 0)
        #expect(try storedBytes(own.sha256, server) == 0, "the deleted message's only blob is still stored")
        #expect(!hasUpload(api, own.sha256))
        // The same bytes are attached to messages 1 and 2: deleting one keeps them.
        #expect(try alice.run(["delete", "\(c)/1"]).code == 0)
        #expect(try storedBytes(shared.sha256, server) == 300_000, "a blob another message names was dropped")
        #expect(try bob.run(["download", "\(c)/2", "--out", dir + "/still.log"]).code == 0)
        #expect(try alice.run(["delete", "\(c)/2"]).code == 0)
        #expect(try storedBytes(shared.sha256, server) == 0)
        #expect(!hasUpload(api, shared.sha256))

        // The tombstones carry no attachment, on the server and in every cache.
        for user in [alice, bob] {
            let page = try user.run(["history", "\(c)", "--json"]).decode(PageJSON.self).messages
            #expect(page.map(\.seq) == [1, 2, 3])
            let raw = try user.run(["history", "\(c)", "--json"]).out
            #expect(!raw.contains(shared.sha256) && !raw.contains(own.sha256), "\(raw)")
            let cacheFiles = FileManager.default.enumerator(atPath: user.home)?.compactMap { $0 as? String } ?? []
            for file in cacheFiles {
                let bytes = FileManager.default.contents(atPath: user.home + "/" + file) ?? Data()
                #expect(bytes.range(of: Data(own.sha256.utf8)) == nil, "\(user.email)'s \(file) still names the deleted file")
            }
        }
        let gone = try bob.run(["download", "\(c)/3", "--out", dir + "/gone.log"])
        #expect(gone.code != 0)
        #expect(!FileManager.default.fileExists(atPath: dir + "/gone.log"))
    }

    @Test func uploadsNoMessageRefersToAreCleanedUp() throws {
        let (server, alice, bob, c) = try setUp(["--upload-cleanup-after", "2s"])
        defer { server.stop() }
        let dir = try makeTempDir("stale")
        let attached = try makeFile(dir, "attached.log", seed: "attached \(UUID())")
        let finished = try makeFile(dir, "finished.log", seed: "finished \(UUID())")
        let started = try makeFile(dir, "started.log", seed: "started \(UUID())")
        #expect(try alice.run(["send", "\(c)", "--file", attached.path]).code == 0)
        let api = try alice.api()
        // An upload finished but never sent, and one that stopped half-way.
        try api.upload(OutboxFile(path: finished.path, name: "finished.log", size: 300_000, sha256: finished.sha256, type: "text/plain"))
        let token = try #require(try Profile(name: "default", home: alice.home).loadSession()).token
        let http = HTTPClient(address: try ServerAddress.list(parsing: server.url)[0])
        let auth = [("Authorization", "Bearer \(token)")]
        let begun = try http.request("POST", "/v1/uploads", headers: auth, body: Array("{\"sha256\":\"\(started.sha256)\",\"size\":300000}".utf8))
        #expect(begun.status == 200, "\(String(decoding: begun.body, as: UTF8.self))")
        let half = [UInt8](try Data(contentsOf: URL(fileURLWithPath: started.path)).prefix(100_000))
        let patched = try http.request(
            "PATCH", "/v1/uploads/\(started.sha256)?offset=0", headers: auth, body: half, contentType: "application/octet-stream")
        #expect(patched.status == 200, "\(String(decoding: patched.body, as: UTF8.self))")
        #expect(try storedBytes(finished.sha256, server) == 300_000)
        #expect(try storedBytes(started.sha256, server) == 100_000)

        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && (hasUpload(api, finished.sha256) || hasUpload(api, started.sha256)) {
            Thread.sleep(forTimeInterval: 0.2)
        }
        #expect(!hasUpload(api, finished.sha256), "a finished upload no message names was kept")
        #expect(!hasUpload(api, started.sha256), "a half-done upload was kept")
        #expect(try storedBytes(finished.sha256, server) == 0)
        #expect(try storedBytes(started.sha256, server) == 0)
        // The attached one stays, however old.
        #expect(hasUpload(api, attached.sha256))
        #expect(try storedBytes(attached.sha256, server) == 300_000)
        #expect(try bob.run(["download", "\(c)/1", "--out", dir + "/got.log"]).code == 0)
    }

    struct QueuedFilesJSON: Decodable {
        struct File: Decodable {
            var name: String
            var size: Int64
            var sha256: String
            var uploaded: Int64?
        }
        var localId: String
        var files: [File]?
    }

    @Test func queueJSONShowsEachQueuedFileAndHowFarItWent() throws {
        var (server, alice, _, c) = try setUp(["--max-attachment", "1GiB"])
        defer { server.stop() }
        let dir = try makeTempDir("queued")
        let small = try makeFile(dir, "notes.txt", seed: "notes \(UUID())", bytes: 1000)
        let big = try makeFile(dir, "dump.bin", seed: "dump \(UUID())", bytes: 160 << 20)
        server.stop()
        let queued = try alice.run(["send", "\(c)", "--file", small.path, "--file", big.path, "two files"])
        #expect(queued.code == 75, "\(queued.err)")
        var entries = try JSONDecoder().decode([QueuedFilesJSON].self, from: Data(try alice.run(["queue", "--json"]).out.utf8))
        let files = try #require(entries.first?.files)
        #expect(files.map(\.name) == ["notes.txt", "dump.bin"])
        #expect(files.map(\.size) == [1000, 160 << 20])
        #expect(files.map(\.sha256) == [small.sha256, big.sha256])
        #expect(files.allSatisfy { $0.uploaded == nil }, "nothing went up yet")

        // Under way: the bytes the server acknowledged show, and stay after a kill -9.
        server = try TestServer(directory: server.directory, port: server.port, database: server.databasePath, extraArguments: ["--max-attachment", "1GiB"])
        // Through a link of 24 MiB/s, so the upload takes about 7 s however fast or loaded the
        // machine: at full speed a CI run's polls missed its first half, and caught near its
        // end, the flush had finished before the kill and the queue it was to show was empty.
        let slowLink = try FaultProxy(upstreamPort: server.port, uploadBytesPerSecond: 24 << 20)
        var viaSlowLink = alice
        viaSlowLink.server = slowLink.url
        let (flush, _, _) = try viaSlowLink.spawn(["queue", "flush", "--now"])
        var seen: Int64?
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, seen == nil, flush.isRunning {
            let list = try JSONDecoder().decode([QueuedFilesJSON].self, from: Data(try alice.run(["queue", "--json"]).out.utf8))
            // Under half way: the kill below then comes with most of the file still to go.
            if let b = list.first?.files?.last?.uploaded, b > 0, b < (160 << 20) / 2 { seen = b }
        }
        kill(flush.processIdentifier, SIGKILL)
        flush.waitUntilExit()
        let caught = try #require(seen, "queue --json never showed the big file under way")
        entries = try JSONDecoder().decode([QueuedFilesJSON].self, from: Data(try alice.run(["queue", "--json"]).out.utf8))
        let shown = try #require(entries.first?.files?.last?.uploaded)
        let onServer = try alice.api().uploadState(sha256: big.sha256).received
        #expect(shown >= caught && shown <= onServer, "queue shows \(shown), the server has \(onServer)")
        #expect(entries.first?.files?.first?.uploaded == 1000)

        #expect(try alice.run(["queue", "flush", "--now"]).code == 0)
        #expect(try alice.run(["queue", "--json"]).out.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        #expect(FileSystem.list(alice.home + "/default/upload-progress").isEmpty, "progress notes outlive the message")
    }
}
