import Foundation
import Testing
@testable import NexusCore

/// A long list's second half read on a thread of its own (SecondHalf): the same
/// value as one reader and as JSONDecoder, wherever the boundary it starts from falls.
struct ConversationsReadingHalvesTests {
    /// The list read in halves (whatever its length), by one reader, and by JSONDecoder.
    static func readsTheSameInHalves(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let halves = try #require(ConversationsResponse.read(json: bytes, halvesFrom: 0), sourceLocation: sourceLocation)
        #expect(halves == ConversationsResponse.read(json: bytes, halvesFrom: .max), sourceLocation: sourceLocation)
        #expect(halves == (try JSONDecoder().decode(ConversationsResponse.self, from: Data(bytes))), sourceLocation: sourceLocation)
    }

    static func summary(_ id: Int, extra: String = "") -> String {
        let t = ConversationsReadingTests.t
        return #"{"id":\#(id),"kind":"group","name":"g \#(id)","memberIds":[1,2],"lastSeq":1,"lastMessage":{"id":\#(id),"conversationId":\#(id),"seq":1,"#
            + #""senderId":1,"localId":"l\#(id)","text":"},{\"id\":\#(id)","sentAt":\#(t)},"createdAt":\#(t),"updatedAt":\#(t),"unreadCount":0\#(extra)}"#
    }

    @Test(arguments: 1...24)
    func randomListsReadInHalves(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &+ 1_000)
        let list = ConversationsResponse.random(&rng)
        for bytes in [list.jsonBytes(), Array(try JSONEncoder().encode(list))] {
            #expect(ConversationsResponse.read(json: bytes, halvesFrom: 0) == list)
        }
    }

    /// Past the threshold the second half is read on its own thread, from a boundary near the
    /// middle, and its conversations are the ones used; their texts hold the boundary, escaped.
    @Test func aLongListIsReadInTwoHalves() throws {
        let bytes = Array(ConversationsReadingTests.list((1...2_000).map { Self.summary($0) }.joined(separator: ",")).utf8)
        #expect(bytes.count >= SecondHalf.minimumBytes)
        let secondHalf = bytes.withUnsafeBufferPointer { p in
            SecondHalf.start(p).map { half in (from: half.from, count: half.join()?.items.count) }
        }
        let half = try #require(secondHalf)
        #expect(half.from > bytes.count / 2)
        #expect((900...1_000).contains(half.count ?? 0), "the second half read \(half.count.map(String.init) ?? "nothing")")
        let list = try #require(ConversationsResponse.read(json: bytes))
        #expect(list.conversations.map(\.id) == Array(1...2_000))
        try Self.readsTheSameInHalves(bytes)
    }

    /// A boundary past the middle can join two objects nested in a field this reader does not
    /// know, or two users: the first half never stops there, and reads everything itself.
    @Test func boundariesThatAreNotBetweenConversationsArePassedBy() throws {
        let nested = (1...400).map { #"{"id":\#($0),"x":[{"id":\#($0)},{"id":0}]}"# }.joined(separator: ",")
        let list = ConversationsReadingTests.list([Self.summary(1), Self.summary(2, extra: #","future":[\#(nested)]"#), Self.summary(3)].joined(separator: ","))
        try Self.readsTheSameInHalves(Array(list.utf8))
        let users = (1...400).map { #"{"id":\#($0),"email":"u\#($0)@x","displayName":"U"}"# }.joined(separator: ",")
        try Self.readsTheSameInHalves(Array(ConversationsReadingTests.list(Self.summary(1), users: "[\(users)]").utf8))
        // Whitespace between conversations: the first half never stands exactly on the boundary.
        try Self.readsTheSameInHalves(Array(ConversationsReadingTests.list((1...50).map { Self.summary($0) }.joined(separator: " ,\n")).utf8))
    }

    /// What the second half cannot read is read by the first, which leaves it to JSONDecoder.
    @Test func anUnreadableSecondHalfIsLeftToJSONDecoder() {
        let items = (1...50).map { Self.summary($0, extra: $0 == 40 ? #","lastMessageReadBy":1e2"# : "") }
        ConversationsReadingTests.check.leavesToJSONDecoder(Array(ConversationsReadingTests.list(items.joined(separator: ",")).utf8))
        let bytes = Array(ConversationsReadingTests.list(items.joined(separator: ",")).utf8)
        #expect(ConversationsResponse.read(json: bytes, halvesFrom: 0) == nil)
    }
}
