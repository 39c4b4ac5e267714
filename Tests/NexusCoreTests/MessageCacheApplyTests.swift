import Foundation
import NexusCore
import Testing

/// The feed's changes carry no message: the cache applies each, in order, to the copy it
/// holds, by the rules nexusd applies them with, and leaves out a message it doesn't hold.
@Suite(.timeLimit(.minutes(15)))
struct MessageCacheApplyTests {
    static let at = Timestamp(milliseconds: 1_800_000_000_000)

    func message(_ seq: Int64) -> Message {
        Message(id: 100 + seq, conversationId: 1, seq: seq, senderId: 1, localId: "l\(seq)", text: "message \(seq)",
                sentAt: Timestamp(milliseconds: 1_700_000_000_000 + seq))
    }

    @Test func changesApplyInOrderToTheCachedCopies() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-apply-\(UUID().uuidString)").path
        let profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let cache = MessageCache(profile: profile)
        try cache.insert((1...3).map(message))
        let changes: [(conversationId: Int64, change: MessageChange)] = [
            (1, MessageChange(kind: .react, userId: 2, emoji: "👍", at: Self.at, seq: 1)),
            (1, MessageChange(kind: .react, userId: 3, emoji: "👍", at: Self.at, seq: 1)),
            (1, MessageChange(kind: .react, userId: 2, emoji: "👍", at: Self.at, seq: 1)),  // a repeat changes nothing
            (1, MessageChange(kind: .unreact, userId: 3, emoji: "👍", at: Self.at, seq: 1)),
            (1, MessageChange(kind: .edit, userId: 1, at: Self.at, seq: 2, text: "v2")),
            (1, MessageChange(kind: .react, userId: 2, emoji: "❤️", at: Self.at, seq: 3)),
            (1, MessageChange(kind: .delete, userId: 1, at: Self.at, seq: 3)),
            (1, MessageChange(kind: .edit, userId: 1, at: Self.at, seq: 9, text: "not cached")),
        ]
        let after = try cache.apply(changes)
        #expect(after[0]?.reactions == [Reaction(emoji: "👍", userIds: [2])])
        #expect(after[1]?.reactions == [Reaction(emoji: "👍", userIds: [2, 3])])
        #expect(after[3]?.reactions == [Reaction(emoji: "👍", userIds: [2])])
        #expect(after[4]?.text == "v2" && after[4]?.editedAt == Self.at)
        #expect(after[5]?.reactions?.count == 1)
        #expect(after[6]?.text == "" && after[6]?.deletedAt == Self.at && after[6]?.reactions == nil)
        #expect(after[7] == nil)
        let kept = try cache.messages(1, seqs: 1...9)
        #expect(kept.map(\.seq) == [1, 2, 3])
        #expect(kept == [after[3], after[4], after[6]].compactMap { $0 })
    }
}
