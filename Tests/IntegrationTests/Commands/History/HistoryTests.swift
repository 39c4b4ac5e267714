import Foundation
import NexusCore
import Testing

/// History and the local cache, with the real binaries.
@Suite(.harness)
struct HistoryTests {
    /// alice sends `count` messages to bob; returns bob and the conversation id.
    func conversation(of count: Int) throws -> (TestServer, User, User, String) {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        let id = String(try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id)
        let lines = (1...count).map { "message \($0)" }.joined(separator: "\n") + "\n"
        let sent = try alice.run(["send", id, "--each-line"], stdin: lines)
        guard sent.code == 0 else { throw HarnessError("send failed: \(sent.err)") }
        return (server, alice, bob, id)
    }

    func page(_ user: User, _ args: [String]) throws -> (seqs: [Int64], hasMore: Bool, next: Int64?) {
        let r = try user.run(["history"] + args + ["--json"])
        guard r.code == 0 else { throw HarnessError("history \(args) exited \(r.code): \(r.err)") }
        let doc = try r.decode(PageJSON.self)
        return (doc.messages.map(\.seq), doc.hasMore, doc.next)
    }

    @Test func pagingBackVisitsEveryMessageOnceAndAllEqualsThePages() throws {
        let (server, _, bob, id) = try conversation(of: 523)
        defer { server.stop() }
        var pages: [[Int64]] = []
        var args = [id]
        while true {
            let p = try page(bob, args)
            #expect(p.seqs == p.seqs.sorted(), "a page prints oldest to newest")
            pages.append(p.seqs)
            guard p.hasMore, let next = p.next else { break }
            args = [id, "--before", String(next)]
        }
        #expect(pages.count == 11)
        #expect(pages.dropLast().allSatisfy { $0.count == 50 })
        #expect(pages.reversed().flatMap { $0 } == Array(1...523))

        let all = try bob.run(["history", id, "--all", "--json"])
        #expect(all.code == 0)
        #expect(all.decodeLines(Message.self).map(\.seq) == Array(1...523), "an export runs oldest to newest")

        let last = try bob.run(["history", id, "--before", "24"])
        #expect(last.lines.last == "No more messages")
        #expect(last.lines.count == 24)
    }

    @Test func theTextFooterIsTheCommandForTheNextPage() throws {
        let (server, _, bob, id) = try conversation(of: 120)
        defer { server.stop() }
        let first = try bob.run(["history", id])
        #expect(first.lines.count == 51)
        let footer = try #require(first.lines.last)
        #expect(footer == "Older: nexusctl history \(id) --before 71")
        let next = try bob.run(footer.split(separator: " ").dropFirst(2).map(String.init))
        #expect(next.lines.first?.hasPrefix("\(id)/21 ") == true, "\(next.out)")
        #expect(next.lines.last == "Older: nexusctl history \(id) --before 21")
    }

    @Test func beforeTakesSeqIdAndTime() throws {
        let (server, _, bob, id) = try conversation(of: 60)
        defer { server.stop() }
        let messages = try bob.run(["history", id, "--json", "--limit", "60"]).decode(PageJSON.self).messages
        let m30 = messages[29]
        let byId = try self.page(bob, [id, "--before", "id:\(m30.id)", "--limit", "5"])
        #expect(byId.seqs == [25, 26, 27, 28, 29])
        let byTime = try self.page(bob, [id, "--before", m30.sentAt.iso8601, "--limit", "500"])
        #expect(byTime.seqs.last.map { $0 < 30 } ?? true, "messages sent at or after the time are left out")
        let bySeq = try self.page(bob, [id, "--before", "3"])
        #expect(bySeq.seqs == [1, 2])
        #expect(!bySeq.hasMore)
    }

    @Test(arguments: [
        (["--before", "id:999999"], "No message 999999 in this conversation."),
        (["--before", "yesterday"], "'yesterday' is none of them"),
        (["--before", "0"], "a seq of 1 or more"),
        (["--limit", "0"], "--limit takes a whole number from 1 to 500"),
        (["--limit", "501"], "--limit takes a whole number from 1 to 500"),
        (["--all", "--before", "5"], "it takes no --before"),
    ])
    func badTargetsAreUsageErrorsNotEmptyPages(_ args: [String], _ message: String) throws {
        let (server, _, bob, id) = try conversation(of: 3)
        defer { server.stop() }
        let r = try bob.run(["history", id] + args)
        #expect(r.code == 2)
        #expect(r.out.isEmpty)
        #expect(r.err.contains(message), "\(r.err)")
    }

    @Test func offlineReadsComeFromTheCacheAndSaySo() throws {
        let (server, _, bob, id) = try conversation(of: 120)
        #expect(try bob.run(["history", id, "--all"]).code == 0)  // fills bob's cache
        server.stop()

        // A page the cache holds whole needs no server, so nothing is said about it.
        let cached = try bob.run(["history", id, "--before", "101"])
        #expect(cached.code == 0)
        #expect(cached.err.isEmpty, "\(cached.err)")
        #expect(cached.lines.first?.hasPrefix("\(id)/51 ") == true)

        let newest = try bob.run(["history", id, "--json"])
        #expect(newest.code == 0)
        #expect(newest.err.contains("offline: can't reach the server at \(bob.server)"), "\(newest.err)")
        let doc = try newest.decode(PageJSON.self)
        #expect(doc.offline == true)
        #expect(doc.messages.map(\.seq) == Array(71...120))

        let tail = try bob.run(["tail", id, "-n", "3"])
        #expect(tail.code == 0)
        #expect(tail.err.contains("offline: can't reach"), "\(tail.err)")
        #expect(tail.lines.map { $0.hasSuffix("message 118") || $0.hasSuffix("message 119") || $0.hasSuffix("message 120") } == [true, true, true])

        let convos = try bob.run(["convos", "--json"]).decode(ConvosJSON.self)
        #expect(convos.offline)
        #expect(convos.conversations.count == 1)
    }

    @Test func aGapInTheCacheIsFilledFromTheServer() throws {
        let (server, _, bob, id) = try conversation(of: 100)
        defer { server.stop() }
        #expect(try bob.run(["history", id, "--all"]).code == 0)
        // Damage the cache: lose message 60 from the middle of its segment.
        let folder = bob.home + "/default/cache/\(id)"
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let path = folder + "/" + name
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            let kept = lines.filter { !$0.contains("\"seq\":60,") }
            try (kept.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        let page = try self.page(bob, [id, "--before", "71", "--limit", "20"])
        #expect(page.seqs == Array(51...70), "the gap was papered over or not filled")
        server.stop()
        // Filled for good: offline, the same page is whole.
        let offline = try bob.run(["history", id, "--before", "71", "--limit", "20", "--json"])
        #expect(offline.err.isEmpty)
        #expect(try offline.decode(PageJSON.self).messages.map(\.seq) == Array(51...70))
    }

    @Test func tornCacheLinesAreTolerated() throws {
        let (server, _, bob, id) = try conversation(of: 30)
        defer { server.stop() }
        #expect(try bob.run(["history", id]).code == 0)
        let folder = bob.home + "/default/cache/\(id)"
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first)
        let handle = try #require(FileHandle(forWritingAtPath: folder + "/" + name))
        handle.seekToEndOfFile()
        handle.write(Data("{\"conversationId\":1,\"id\":9".utf8))
        handle.closeFile()
        server.stop()
        let r = try bob.run(["history", id, "--before", "31", "--json"])
        #expect(r.code == 0)
        #expect(try r.decode(PageJSON.self).messages.count == 30)
    }

    @Test func cachePruneDropsOldMessages() throws {
        let (server, _, bob, id) = try conversation(of: 10)
        defer { server.stop() }
        #expect(try bob.run(["history", id]).code == 0)
        let keep = try bob.run(["cache", "prune", "--json"])
        #expect(try keep.decode(RemovedJSON.self).removed == 0)
        Thread.sleep(forTimeInterval: 1.1)
        let all = try bob.run(["cache", "prune", "--older-than", "1s", "--json"])
        #expect(try all.decode(RemovedJSON.self).removed == 10)
        #expect(try bob.run(["cache", "prune", "--older-than", "soon"]).code == 2)
    }
}
