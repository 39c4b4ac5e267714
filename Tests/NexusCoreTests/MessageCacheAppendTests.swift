import Foundation
import NexusCore
import Testing

/// Messages newer than everything cached are appended after reading only the newest
/// segment (MessageCache.appendAfterNewest); anything else takes the general way.
// The clock starts when the run queues a test: the limit bounds the whole run (IntegrationTests/TimeLimit.swift).
@Suite(.timeLimit(.minutes(15)))
struct MessageCacheAppendTests {
    let cases = MessageCacheTests()

    func segmentFiles(_ cache: MessageCache) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache.directory + "/1")) ?? []).filter { $0.hasSuffix(".jsonl") }.sorted()
    }

    // A bot sending into a busy group: its cache holds its own messages only.
    @Test func sendsWithOthersMessagesBetweenThemAreEachCachedOnce() throws {
        let (cache, _) = try cases.makeCache()
        let seqs = Array(stride(from: Int64(10), through: 400, by: 10))
        for seq in seqs { try cache.insert([cases.message(seq)]) }
        try cache.insert([cases.message(400), cases.message(390)])  // again: nothing new
        #expect(try cache.messages(1, seqs: 1...400).map(\.seq) == seqs)
        #expect(segmentFiles(cache).count == seqs.count)
        #expect(try cache.lastSeq(1) == 400)
        // A run that continues the newest segment goes into it.
        try cache.insert((401...403).map { cases.message($0) })
        #expect(segmentFiles(cache).count == seqs.count)
        #expect(try cache.page(1, before: nil, limit: 4).messages.map(\.seq) == [400, 401, 402, 403])
    }

    // The mechanism itself: the older segments are not read. A damaged one is left as it is
    // (the general way, which reads them all, would have rewritten it).
    @Test func aNewerMessageReadsOnlyTheNewestSegment() throws {
        let (cache, _) = try cases.makeCache()
        try cache.insert((1...5).map { cases.message($0) })
        try cache.insert((20...25).map { cases.message($0) })
        let older = cache.directory + "/1/" + segmentFiles(cache)[0]
        let damaged = Data("not json\n".utf8)
        try damaged.write(to: URL(fileURLWithPath: older))
        try cache.insert([cases.message(26)])
        #expect(try Data(contentsOf: URL(fileURLWithPath: older)) == damaged)
        #expect(try cache.messages(1, seqs: 20...26).map(\.seq) == Array(20...26))
    }

    @Test func anOlderMessageTakesTheGeneralWay() throws {
        let (cache, _) = try cases.makeCache()
        try cache.insert((1...5).map { cases.message($0) })
        try cache.insert((20...25).map { cases.message($0) })
        try cache.insert([cases.message(10), cases.message(3), cases.message(30)])
        #expect(try cache.messages(1, seqs: 1...30).map(\.seq) == Array(1...5) + [10] + Array(20...25) + [30])
    }

    @Test func aNewestSegmentThatIsNotWholeTakesTheGeneralWay() throws {
        let (cache, _) = try cases.makeCache()
        try cache.insert((1...5).map { cases.message($0) })
        // A file whose name says seq 20 but whose first line is seq 21: damage.
        try JSONLinesFile(path: cache.directory + "/1/000000000020.jsonl").append((21...23).map { cases.message($0) }, sync: false)
        try cache.insert([cases.message(24)])
        #expect(try cache.messages(1, seqs: 1...30).map(\.seq) == Array(1...5) + Array(21...24))
    }
}
