import Foundation
import NexusCore
import Testing

/// A page reads only the segments its seqs can be in, found by their names
/// (MessageCache+Range.swift); the newest seq comes from the newest segment alone.
// The clock starts when the run queues a test: the limit bounds the whole run (IntegrationTests/TimeLimit.swift).
@Suite(.timeLimit(.minutes(15)))
struct MessageCacheRangeTests {
    let cases = MessageCacheTests()

    func file(_ cache: MessageCache, _ seq: Int64) -> URL {
        URL(fileURLWithPath: cache.directory + "/1/" + String(format: "%012d.jsonl", seq))
    }

    // A bot's own messages in a busy group, one segment each. The mechanism: the newest page
    // leaves a damaged old segment as it is (reading every segment would have removed it).
    @Test func theNewestPageReadsOnlyTheSegmentsItReaches() throws {
        let (cache, _) = try cases.makeCache()
        let seqs = Array(stride(from: Int64(10), through: 400, by: 10))
        for seq in seqs { try cache.insert([cases.message(seq)]) }
        let damaged = Data("not json\n".utf8)
        try damaged.write(to: file(cache, 10))
        let page = try cache.page(1, before: nil, limit: 20)
        #expect(page.messages.map(\.seq) == [390, 400])
        #expect(!page.complete && page.hasMore)
        #expect(try cache.lastSeq(1) == 400)
        #expect(try Data(contentsOf: file(cache, 10)) == damaged)
        // A range that reaches it reads it, and drops what cannot be read.
        #expect(try cache.messages(1, seqs: 1...400).map(\.seq) == Array(seqs.dropFirst()))
        #expect(!FileManager.default.fileExists(atPath: file(cache, 10).path))
    }

    @Test func aSegmentThatStartsBeforeTheRangeAndRunsIntoItIsRead() throws {
        let (cache, _) = try cases.makeCache()
        try cache.insert((1...50).map { cases.message($0) })
        try cache.insert([cases.message(60)])
        try cache.insert((70...72).map { cases.message($0) })
        #expect(try cache.messages(1, seqs: 40...60).map(\.seq) == Array(40...50) + [60])
        #expect(try cache.messages(1, seqs: 55...59).isEmpty)
        #expect(try cache.messages(1, seqs: 71...100).map(\.seq) == [71, 72])
        #expect(try cache.page(1, before: 61, limit: 15).messages.map(\.seq) == Array(46...50) + [60])
    }

    // A newest file whose first line disagrees with its name is damage: every segment is
    // read, and the file repaired, as before.
    @Test func aNewestSegmentThatIsNotWholeMakesLastSeqReadThemAll() throws {
        let (cache, _) = try cases.makeCache()
        try cache.insert((1...5).map { cases.message($0) })
        try JSONLinesFile(path: file(cache, 400).path).append((401...403).map { cases.message($0) }, sync: false)
        #expect(try cache.lastSeq(1) == 403)
        #expect(try cache.page(1, before: nil, limit: 3).messages.map(\.seq) == [401, 402, 403])
    }

    @Test func anEmptyCacheHasNothing() throws {
        let (cache, _) = try cases.makeCache()
        #expect(try cache.lastSeq(1) == 0)
        #expect(try cache.page(1, before: nil, limit: 20).messages.isEmpty)
        #expect(try cache.messages(1, seqs: 1...10).isEmpty)
    }
}
