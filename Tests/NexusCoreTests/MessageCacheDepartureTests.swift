import Foundation
import NexusCore
import Testing

/// How the cache tells that its account left a group, or was removed from it, and that a
/// later add takes it back in; across more than one window of cached messages.
struct MessageCacheDepartureTests {
    let me: Int64 = 2

    func makeCache() throws -> MessageCache {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-departure-\(UUID().uuidString)").path
        let profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        return MessageCache(profile: profile)
    }

    func message(_ seq: Int64, from sender: Int64 = 1, _ event: MembershipEvent? = nil) -> Message {
        Message(id: seq, conversationId: 7, seq: seq, senderId: sender, localId: "l\(seq)", text: "m\(seq)",
                sentAt: Timestamp(milliseconds: 1_700_000_000_000 + seq), membership: event)
    }

    @Test func theNewestEventThatTookMeOutIsTheDeparture() throws {
        let cache = try makeCache()
        #expect(try cache.departure(of: me, from: 7) == nil, "nothing cached")
        // Removed early, far below a window of messages, then nothing else about me.
        try cache.insert([message(1), message(2, MembershipEvent(kind: .removed, userIds: [me]))] + (3...1200).map { message($0) })
        #expect(try cache.departure(of: me, from: 7)?.seq == 2)
        #expect(try cache.departure(of: me, from: 7)?.senderId == 1, "who removed me")
        // Added back: a member again.
        try cache.insert([message(1201, MembershipEvent(kind: .added, userIds: [3, me]))])
        #expect(try cache.departure(of: me, from: 7) == nil)
        // Someone else leaving is not my departure; my own leave is.
        try cache.insert([message(1202, from: 3, MembershipEvent(kind: .left))])
        #expect(try cache.departure(of: me, from: 7) == nil)
        try cache.insert([message(1203, from: me, MembershipEvent(kind: .left))])
        #expect(try cache.departure(of: me, from: 7)?.seq == 1203)
    }
}
