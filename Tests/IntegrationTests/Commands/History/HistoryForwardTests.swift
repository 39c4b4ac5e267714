import Foundation
import NexusCore
import Testing

/// `history --after` and `--all` page forward, for scripts that keep their own place and for
/// exports: oldest to newest, each message once, online and from the cache.
@Suite(.harness)
struct HistoryForwardTests {
    @Test func afterASeqAnIdOrATimeAndAllRunForwardOnce() throws {
        let (server, _, bob, id) = try HistoryTests().conversation(of: 120)
        defer { server.stop() }

        let all = try bob.run(["history", id, "--all", "--limit", "7", "--json"])
        #expect(all.code == 0, "\(all.err)")
        let messages = all.decodeLines(Message.self)
        #expect(messages.map(\.seq) == Array(1...120))
        let text = try bob.run(["history", id, "--all"])
        #expect(text.lines.first?.hasSuffix("message 1") == true && text.lines.last == "No more messages", "\(text.lines.suffix(2))")

        let since = try bob.run(["history", id, "--after", "100"])
        let printedSeqs: [String] = since.lines.dropLast().map { line in String(line.prefix { $0 != " " }) }
        let expectedSeqs: [String] = (101...120).map { "\(id)/\($0)" }
        #expect(printedSeqs == expectedSeqs)
        #expect(since.lines.last == "No newer messages")

        let page = try bob.run(["history", id, "--after", "10", "--limit", "20", "--json"]).decode(PageJSON.self)
        #expect(page.messages.map(\.seq) == Array(11...30))
        #expect(page.hasMore)
        #expect(page.next == 30)
        let more = try bob.run(["history", id, "--after", "10", "--limit", "20"])
        #expect(more.lines.last == "Newer: nexusctl history \(id) --after 30 --limit 20")

        let byId = try bob.run(["history", id, "--after", "id:\(messages[59].id)", "--limit", "3", "--json"]).decode(PageJSON.self)
        #expect(byId.messages.map(\.seq) == [60, 61, 62])
        let time = messages[49].sentAt
        let byTime = try bob.run(["history", id, "--after", time.iso8601, "--all", "--json"]).decodeLines(Message.self)
        let expectedByTime: [Int64] = messages.filter { $0.sentAt >= time }.map(\.seq)
        #expect(byTime.map(\.seq) == expectedByTime)

        let since100 = try bob.run(["history", id, "--after", "100", "--all", "--json"]).decodeLines(Message.self)
        #expect(since100.map(\.seq) == Array(101...120))

        // The cache holds it all now: offline, a forward page by seq still answers.
        server.stop()
        let offline = try bob.run(["history", id, "--after", "115", "--json"])
        #expect(offline.code == 0, "\(offline.err)")
        #expect(try offline.decode(PageJSON.self).messages.map(\.seq) == Array(116...120))
        let offlineTime = try bob.run(["history", id, "--after", time.iso8601])
        #expect(offlineTime.code == 75, "\(offlineTime.err)")
        #expect(offlineTime.err.contains("--before and --after take a seq"), "\(offlineTime.err)")
    }
}
