import Foundation
import NexusCore
import Testing

struct MessageCacheTests {
    func makeCache() throws -> (MessageCache, Profile) {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-cache-\(UUID().uuidString)").path
        let profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        return (MessageCache(profile: profile), profile)
    }

    func message(_ seq: Int64, conversation: Int64 = 1, at ms: Int64? = nil) -> Message {
        Message(id: conversation * 1_000_000 + seq, conversationId: conversation, seq: seq, senderId: 1, localId: "l\(seq)",
                text: "message \(seq)", sentAt: Timestamp(milliseconds: ms ?? 1_700_000_000_000 + seq * 1000))
    }

    @Test func pagesInAnyInsertOrderComeBackInSeqOrder() throws {
        let (cache, _) = try makeCache()
        // Newest first, then older pages, as paging back does; plus repeats.
        try cache.insert((51...100).map { message($0) })
        try cache.insert((1...50).reversed().map { message($0) })
        try cache.insert((40...60).map { message($0) })
        let newest = try cache.page(1, before: nil, limit: 30)
        #expect(newest.messages.map(\.seq) == Array(71...100))
        #expect(newest.complete)
        #expect(newest.hasMore)
        let oldest = try cache.page(1, before: 11, limit: 50)
        #expect(oldest.messages.map(\.seq) == Array(1...10))
        #expect(oldest.complete)
        #expect(!oldest.hasMore)
        #expect(try cache.messages(1, seqs: 1...100).map(\.seq) == Array(1...100))
    }

    @Test func aGapMakesThePageIncomplete() throws {
        let (cache, _) = try makeCache()
        try cache.insert((1...40).map { message($0) } + (46...60).map { message($0) })
        let page = try cache.page(1, before: 61, limit: 30)
        #expect(!page.complete)
        #expect(page.messages.map(\.seq) == Array(31...40) + Array(46...60))
        try cache.insert((41...45).map { message($0) })
        #expect(try cache.page(1, before: 61, limit: 30).complete)
    }

    @Test func aDamagedLineBecomesAGapNotAWrongAnswer() throws {
        let (cache, profile) = try makeCache()
        try cache.insert((1...100).map { message($0) })
        let segment = profile.directory + "/cache/1/000000000001.jsonl"
        var lines = try String(contentsOfFile: segment, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        lines[49] = "{\"garbage"  // seq 50
        try lines.joined(separator: "\n").write(toFile: segment, atomically: true, encoding: .utf8)
        let page = try cache.page(1, before: 61, limit: 20)
        #expect(!page.complete)
        #expect(page.messages.map(\.seq) == Array(41...49) + Array(51...60))
        try cache.insert([message(50)])
        #expect(try cache.page(1, before: 61, limit: 20).messages.map(\.seq) == Array(41...60))
    }

    @Test func aTornLastLineIsIgnoredAndRepairedByTheNextAppend() throws {
        let (cache, profile) = try makeCache()
        try cache.insert((1...10).map { message($0) })
        let segment = profile.directory + "/cache/1/000000000001.jsonl"
        let handle = try #require(FileHandle(forWritingAtPath: segment))
        handle.seekToEndOfFile()
        handle.write(Data("{\"conversationId\":1,\"seq\":11,".utf8))
        handle.closeFile()
        #expect(try cache.page(1, before: nil, limit: 5).messages.map(\.seq) == Array(6...10))
        try cache.insert([message(11), message(12)])
        #expect(try cache.page(1, before: nil, limit: 5).messages.map(\.seq) == Array(8...12))
        #expect(try String(contentsOfFile: segment, encoding: .utf8).split(separator: "\n").count == 12)
    }

    @Test func pagingBackFarKeepsFewFiles() throws {
        let (cache, profile) = try makeCache()
        var before: Int64 = 5001
        while before > 1 {
            let low = max(1, before - 50)
            try cache.insert((low..<before).map { message($0) })
            before = low
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: profile.directory + "/cache/1")
        #expect(files.count <= 33)
        #expect(try cache.messages(1, seqs: 1...5000).map(\.seq) == Array(1...5000))
    }

    @Test func pruneDropsOldMessagesAndKeepsTheRest() throws {
        let (cache, _) = try makeCache()
        try cache.insert((1...10).map { message($0, at: $0 <= 4 ? 1_000 : 2_000_000) })
        try cache.insert([message(1, conversation: 2, at: 1_000)])
        #expect(try cache.prune(olderThan: Timestamp(milliseconds: 1_000_000)) == 5)
        #expect(try cache.messages(1, seqs: 1...10).map(\.seq) == Array(5...10))
        #expect(cache.conversations() == [1])
    }

    /// A segment appended to for months is one big file: prune keeps its tail by copying
    /// bytes, and the cache goes on from there (appends, pages) as before.
    @Test func pruneKeepsTheTailOfABigSegmentAndAppendsGoOnAfterIt() throws {
        let (cache, profile) = try makeCache()
        try cache.insert((1...20_000).map { message($0, at: $0 <= 15_000 ? 1_000 + $0 : 2_000_000 + $0) })
        // A torn line among the old ones is dropped with them.
        let folder = profile.directory + "/cache/1"
        let file = folder + "/" + (try FileManager.default.contentsOfDirectory(atPath: folder).sorted()[0])
        var text = try String(contentsOfFile: file, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"seq\":7,", with: "\"seq\":7")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        try cache.insert([message(1, conversation: 2, at: 1_000)])

        #expect(try cache.prune(olderThan: Timestamp(milliseconds: 1_000_000)) == 14_999 + 1)
        #expect(try cache.messages(1, seqs: 1...20_000).map(\.seq) == Array(15_001...20_000))
        #expect(cache.conversations() == [1])
        try cache.insert((20_001...20_010).map { message($0, at: 3_000_000) })
        #expect(try cache.page(1, before: nil, limit: 30).messages.map(\.seq) == Array(19_981...20_010))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 1)
        #expect(try cache.prune(olderThan: Timestamp(milliseconds: 1_000_000)) == 0)
    }
}
