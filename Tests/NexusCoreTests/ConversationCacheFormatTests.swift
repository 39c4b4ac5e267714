import Foundation
import Testing
@testable import NexusCore

/// `convos.tsv` must give back what was saved (less what the list line does not keep),
/// whatever the text holds: tabs, newlines, "\r\n" (one Character in Swift), backslashes.
struct ConversationCacheFormatTests {
    /// What a list line keeps of a summary.
    static func kept(_ s: ConversationSummary) -> ConversationSummary {
        var s = s
        if s.name == "" { s.name = nil }
        if s.lastMessageReadBy == nil { s.lastMessageReaders = nil }
        s.lastMessage = s.lastMessage.map {
            Message(id: $0.id, conversationId: s.id, seq: $0.seq, senderId: $0.senderId, localId: $0.localId, text: $0.text, sentAt: $0.sentAt)
        }
        return s
    }

    static func roundTrip(_ summaries: [ConversationSummary], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let profile = Profile(name: "default", home: home)
        try FileManager.default.createDirectory(atPath: profile.directory, withIntermediateDirectories: true)
        let cache = ConversationCache(profile: profile)
        try cache.saveList(summaries)
        #expect(cache.list() == summaries.map(kept), sourceLocation: sourceLocation)
    }

    @Test func keepsEveryKindOfText() throws {
        let t = Timestamp(milliseconds: 1_795_348_984_005)
        let texts = ["plain", "tab\there", "line\nnext", "crlf\r\nnext", "cr\ronly", "back\\slash", "\\t not a tab", "\t\u{301}", "\\\u{301}", "é🙂中", ""]
        try Self.roundTrip(texts.enumerated().map { k, text in
            ConversationSummary(id: Int64(k), kind: .group, name: text, memberIds: [1, 2], lastSeq: 3,
                                lastMessage: Message(id: 9, conversationId: Int64(k), seq: 3, senderId: 1, localId: text, text: text, sentAt: t),
                                createdAt: t, updatedAt: t, unreadCount: 1, lastMessageReadBy: 1, lastMessageReaders: 2)
        })
    }

    /// Numbers are written digit by digit: zero, one digit, negatives (times before 1970),
    /// and both ends of Int64.
    @Test func keepsEveryKindOfNumber() throws {
        let numbers: [Int64] = [0, 7, 10, 99, -1, -10, 1_795_348_984_005, .max, .min, .min + 1]
        try Self.roundTrip(numbers.enumerated().map { k, n in
            let t = Timestamp(milliseconds: n)
            return ConversationSummary(id: n, kind: .direct, name: nil, memberIds: [n, 0, -5], lastSeq: n,
                                       lastMessage: Message(id: n, conversationId: n, seq: n, senderId: n, localId: "l\(k)", text: "t", sentAt: t),
                                       createdAt: t, updatedAt: t, unreadCount: k * 1000, lastMessageReadBy: Int(n), lastMessageReaders: k)
        })
    }

    @Test(arguments: [11, 12, 13, 14])
    func keepsRandomLists(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        try Self.roundTrip(ConversationsResponse.random(&rng).conversations)
    }
}
