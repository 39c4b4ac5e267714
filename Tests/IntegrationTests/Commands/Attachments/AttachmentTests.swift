import Foundation
@testable import NexusCore
import Testing

/// Attachments: a file sent offline goes up in chunks that survive kill -9 of
/// nexusctl and a restart of nexusd without starting over, arrives verified, and is
/// served to members only. Real nexusd (SQLite or PostgreSQL), real nexusctl.
@Suite(.serialized, .timeLimit(.minutes(20)))
struct AttachmentTests {
    /// The big file's size: 300 MiB as the product promises; `NEXUS_TEST_ATTACHMENT_MIB` changes it.
    static let bigMiB = Int(ProcessInfo.processInfo.environment["NEXUS_TEST_ATTACHMENT_MIB"] ?? "") ?? 300

    struct Opened: Decodable {
        struct Conversation: Decodable { var id: Int64 }
        var conversation: Conversation
    }

    /// A server that takes big attachments, alice and bob, and their conversation's id.
    func setUp(_ extra: [String] = []) throws -> (TestServer, User, User, Int64) {
        let server = try TestServer(extraArguments: ["--max-attachment", "1GiB"] + extra)
        let (alice, bob) = try server.pair()
        let id = try alice.run(["new", bob.email, "--json"]).decode(Opened.self).conversation.id
        return (server, alice, bob, id)
    }

    /// A file of `mib` MiB whose every MiB differs.
    func makeFile(_ dir: String, name: String, mib: Int) throws -> String {
        let path = dir + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        var block = [UInt8](repeating: 0, count: 1 << 20)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<mib {
            for i in stride(from: 0, to: block.count, by: 8) {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                withUnsafeBytes(of: state) { for j in 0..<8 { block[i + j] = $0[j] } }
            }
            try handle.write(contentsOf: Data(block))
        }
        try handle.close()
        return path
    }

    /// Waits until the server holds more than `bytes` of the upload (false if it finished first).
    func waitForUpload(_ api: NexusAPI, sha256: String, beyond bytes: Int64, timeout: Double = 120) -> UploadState? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let state = try? api.uploadState(sha256: sha256), state.received > bytes || state.complete { return state }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }

    // MARK: - Test 1

    @Test func aBigFileSentOfflineSurvivesKillsAndARestartWithoutStartingOver() throws {
        var (server, alice, bob, conversation) = try setUp()
        defer { server.stop() }
        let dir = try makeTempDir("big")
        let size = Int64(Self.bigMiB) << 20
        let path = try makeFile(dir, name: "big.bin", mib: Self.bigMiB)
        let sha = try LocalFile.measure(path).sha256

        // Sent while nexusd is down: queued, with the file's size and hash.
        server.stop()
        let queued = try alice.run(["send", String(conversation), "--file", path, "the dump", "--json"])
        #expect(queued.code == 75, "\(queued.err)")
        server = try TestServer(directory: server.directory, port: server.port, extraArguments: ["--max-attachment", "1GiB"])

        let api = try alice.api()
        // The killed flushes go up a link of 64 MiB/s, so a kill comes in the middle of the
        // upload even when this process is held up between two polls on a loaded machine.
        let slowLink = try FaultProxy(upstreamPort: server.port, uploadBytesPerSecond: 64 << 20)
        var viaSlowLink = alice
        viaSlowLink.server = slowLink.url
        var seen: Int64 = 0
        for round in 1...3 {
            // kill -9 nexusctl in the middle of the upload, each time further on.
            let (flush, _, _) = try viaSlowLink.spawn(["queue", "flush", "--now"])
            let state = try #require(waitForUpload(api, sha256: sha, beyond: seen + size / 6), "round \(round): the upload moved on")
            kill(flush.processIdentifier, SIGKILL)
            flush.waitUntilExit()
            #expect(!state.complete, "round \(round): killed before the upload was done")
            let after = try api.uploadState(sha256: sha)
            #expect(after.received >= state.received, "round \(round): what the server acknowledged stays")
            seen = after.received
            if round == 2 {
                // nexusd restarted once, in the middle of it all.
                server.stop()
                server = try TestServer(directory: server.directory, port: server.port, extraArguments: ["--max-attachment", "1GiB"])
                #expect(try api.uploadState(sha256: sha).received == seen, "acknowledged bytes survive a restart")
            }
        }

        let done = try alice.run(["queue", "flush", "--now"])
        #expect(done.code == 0, "\(done.out)\(done.err)")
        let final = try api.uploadState(sha256: sha)
        #expect(final.complete)
        // Resumed, not started over: the server read well under twice the file.
        #expect(final.bytesIn < size + size / 2, "the server read \(final.bytesIn) bytes for a file of \(size)")
        print("attachments: the server read \(final.bytesIn) bytes for a file of \(size) (\(Backend.name))")

        // The message exists exactly once, and the download is the same bytes.
        let messages = try bob.serverMessages().filter { $0.attachments?.first?.sha256 == sha }
        #expect(messages.count == 1)
        let message = try #require(messages.first)
        #expect(message.text == "the dump")
        #expect(message.attachments == [Attachment(name: "big.bin", size: size, type: "application/octet-stream", sha256: sha)])
        let out = dir + "/downloaded.bin"
        let download = try bob.run(["download", "\(conversation)/\(message.seq)", "--out", out])
        #expect(download.code == 0, "\(download.err)")
        let got = try LocalFile.measure(out)
        #expect(got.sha256 == sha && got.size == size)
        #expect(try alice.outboxEntries().allSatisfy { $0.status == "sent" })
    }

    // MARK: - Test 2

    @Test func aNonMemberGetsTheSame404AsForAnUnknownId() throws {
        let (server, alice, _, conversation) = try setUp()
        defer { server.stop() }
        let carol = try User("carol", server: server.url)
        try carol.register(name: "Carol")
        let dir = try makeTempDir("small")
        let path = try makeFile(dir, name: "notes.txt", mib: 1)
        let sent = try alice.run(["send", String(conversation), "--file", path])
        #expect(sent.code == 0, "\(sent.err)")

        let token = try #require(try Profile(name: "default", home: carol.home).loadSession()).token
        let http = HTTPClient(address: try ServerAddress.list(parsing: server.url)[0])
        func get(_ path: String) throws -> HTTPResponse {
            try http.request("GET", path, headers: [("Authorization", "Bearer \(token)")])
        }
        let unknown = conversation + 1000
        for (mine, other) in [
            ("/v1/conversations/\(conversation)/messages", "/v1/conversations/\(unknown)/messages"),
            ("/v1/conversations/\(conversation)/messages/1/attachments/0", "/v1/conversations/\(unknown)/messages/1/attachments/0"),
        ] {
            let a = try get(mine), b = try get(other)
            #expect(a.status == 404 && b.status == 404, "\(mine): \(a.status), \(other): \(b.status)")
            #expect(a.body == b.body, "\(mine) tells a non-member more than an unknown id")
            #expect(a.header("Content-Type") == b.header("Content-Type"))
        }
        let refused = try carol.run(["download", "\(conversation)/1", "--out", dir + "/stolen"])
        #expect(refused.code == 3, "\(refused.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/stolen"))
    }

    // MARK: - Files that change, stdin, overwrites

    @Test func aFileChangedOrGoneBeforeUploadFailsItsMessageInsteadOfSendingIt() throws {
        var (server, alice, bob, conversation) = try setUp()
        defer { server.stop() }
        let dir = try makeTempDir("changing")
        let changed = try makeFile(dir, name: "changed.bin", mib: 2)
        let gone = try makeFile(dir, name: "gone.bin", mib: 1)
        server.stop()
        #expect(try alice.run(["send", String(conversation), "--file", changed]).code == 75)
        #expect(try alice.run(["send", String(conversation), "--file", gone]).code == 75)
        // Same size, other bytes: only the hash can tell.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: changed))
        try handle.seek(toOffset: 1_500_000)
        try handle.write(contentsOf: Data("edited".utf8))
        try handle.close()
        try FileManager.default.removeItem(atPath: gone)
        server = try TestServer(directory: server.directory, port: server.port, extraArguments: ["--max-attachment", "1GiB"])

        let flush = try alice.run(["queue", "flush", "--now"])
        #expect(flush.code == 1, "\(flush.out)\(flush.err)")
        let entries = try alice.outboxEntries()
        try #require(entries.count == 2, "both messages stay in the outbox, not sent")
        #expect(entries.allSatisfy { $0.status == "failed" })
        #expect(entries[0].lastError?.contains("changed after it was queued") == true, "\(entries[0].lastError ?? "")")
        #expect(entries[1].lastError?.contains("is gone") == true, "\(entries[1].lastError ?? "")")
        #expect(try bob.serverMessages().isEmpty, "nothing was sent wrong")
    }

    @Test func stdinIsKeptInTheProfileUntilItIsUploaded() throws {
        var (server, alice, bob, conversation) = try setUp()
        defer { server.stop() }
        server.stop()
        let text = String(repeating: "log line\n", count: 50_000)
        let queued = try alice.run(["send", String(conversation), "--file", "-", "--name", "app.log"], stdin: text)
        #expect(queued.code == 75, "\(queued.err)")
        let spool = alice.home + "/default/attachments"
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool).count == 1, "stdin is copied before the command ends")
        server = try TestServer(directory: server.directory, port: server.port, extraArguments: ["--max-attachment", "1GiB"])
        #expect(try alice.run(["queue", "flush", "--now"]).code == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool).isEmpty, "the copy goes once the message is sent")

        let tail = try bob.run(["history", String(conversation)])
        #expect(tail.out.contains("📎 app.log (439 KiB, text/plain)"), "\(tail.out)")
        let out = try bob.run(["download", "\(conversation)/1", "--out", "-"])
        #expect(out.code == 0 && out.out == text)
        // Never over an existing file without --force; with it, atomically.
        let dir = try makeTempDir("dl")
        let target = dir + "/app.log"
        try "mine".write(toFile: target, atomically: true, encoding: .utf8)
        let refused = try bob.run(["download", "\(conversation)/1", "--out", target])
        #expect(refused.code == 1 && refused.err.contains("exists"), "\(refused.err)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "mine")
        #expect(try bob.run(["download", "\(conversation)/1", "--out", target, "--force"]).code == 0)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == text)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["app.log"], "no temporary file is left")
    }

    @Test func theServerRefusesAFileOverItsLimitAndBytesThatDoNotMatchTheHash() throws {
        let (server, alice, _, conversation) = try setUp(["--max-attachment", "1MiB"])
        defer { server.stop() }
        let dir = try makeTempDir("limit")
        let big = try makeFile(dir, name: "big.bin", mib: 2)
        // The profile knows the limit from nexusd's answers: refused before it is queued.
        let r = try alice.run(["send", String(conversation), "--file", big])
        #expect(r.code == 2, "\(r.err)")
        #expect(r.err.contains("at most 1048576 bytes"), "\(r.err)")
        // A profile that never heard the limit meets the server's refusal.
        try FileManager.default.removeItem(atPath: alice.home + "/default/max-attachment")
        let unknown = try alice.run(["send", String(conversation), "--file", big])
        #expect(unknown.code == 1, "\(unknown.err)")
        #expect(unknown.err.contains("at most 1048576 bytes"), "\(unknown.err)")

        // A client that lies about the hash gets no acknowledgement of the last chunk.
        let api = try alice.api()
        let sha = String(repeating: "ab", count: 32)
        let file = try makeFile(dir, name: "small.bin", mib: 1)
        #expect(throws: UploadFailure.self) {
            try api.upload(OutboxFile(path: file, name: "small.bin", size: 1 << 20, sha256: sha, type: "application/octet-stream"))
        }
        #expect(throws: APIError.self) { try api.uploadState(sha256: sha) }
    }
}
