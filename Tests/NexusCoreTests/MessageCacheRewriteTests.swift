import Foundation
@testable import NexusCore
import Testing

/// Edit/delete/react speed: a change rewrites only its own line of the cached
/// segment (the rest go over byte for byte), and a text that looks like a seq key does not
/// fool it into keeping an old line or changing the wrong one.
// The clock starts when the run queues a test: the limit bounds the whole run (IntegrationTests/TimeLimit.swift).
@Suite(.timeLimit(.minutes(15)))
struct MessageCacheRewriteTests {
    func message(_ seq: Int64, text: String? = nil) -> Message {
        Message(id: 1_000_000 + seq, conversationId: 1, seq: seq, senderId: 1, localId: "l\(seq)",
                text: text ?? "message \(seq)", sentAt: Timestamp(milliseconds: 1_700_000_000_000 + seq * 1000))
    }

    @Test func aChangeRewritesItsLineAndKeepsTheOthersByteForByte() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-rewrite-\(UUID().uuidString)").path
        let profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        let cache = MessageCache(profile: profile)
        // Texts that hold what a seq key looks like, escaped as JSON escapes a quote.
        var originals = (1...60).map { message($0) }
        originals[6] = message(7, text: #"see "seq":30 and "seq":31"#)
        originals[29] = message(30, text: #"{"seq":7}"#)
        try cache.insert(originals)
        let folder = profile.directory + "/cache/1"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".jsonl") }
        let before = try files.map { try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)) }

        var edited = message(31, text: "edited 31")
        edited.editedAt = Timestamp(milliseconds: 1_800_000_000_000)
        try cache.upsert([edited])
        #expect(try cache.messages(1, seqs: 1...60) == originals.map { $0.seq == 31 ? edited : $0 })

        // Every line but the edited one is as it was, byte for byte.
        let after = try files.map { try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)) }
        let linesBefore = before.flatMap { $0.split(separator: 10) }
        let linesAfter = after.flatMap { $0.split(separator: 10) }
        #expect(linesBefore.count == linesAfter.count)
        let differing = zip(linesBefore, linesAfter).filter { $0 != $1 }
        #expect(differing.count == 1)
        #expect(differing.first.map { String(decoding: $0.1, as: UTF8.self).contains("edited 31") } == true)

        // The line whose text names seq 7 is not mistaken for message 7, nor message 7's for 30.
        var deleted = message(7, text: "")
        deleted.deletedAt = Timestamp(milliseconds: 1_800_000_000_000)
        try cache.upsert([deleted])
        let now = try cache.messages(1, seqs: 1...60)
        #expect(now[6] == deleted)
        #expect(now[29] == originals[29])
        let raw = try files.map { String(decoding: try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)), as: UTF8.self) }.joined()
        #expect(!raw.contains("and \\\"seq\\\":31"), "the deleted text left the file")
    }
}
