import Foundation
import NexusCore
import Testing

/// `SyncResponse.jsonBytes()`, the hand-written encoding of a page of message events, writes
/// what Codable's encoder writes: the same keys and values (the encoder's key order is not
/// fixed), decoding to the same page.
struct SyncResponseWritingTests {
    static let at = Timestamp(milliseconds: 1_764_400_000_123)

    static func message(_ id: Int64, text: String = "hi", extra: (inout Message) -> Void = { _ in }) -> Message {
        var m = Message(id: id, conversationId: 3, seq: id, senderId: 1, localId: "l-\(id)", text: text, sentAt: at)
        extra(&m)
        return m
    }

    static let pages: [SyncResponse] = [
        SyncResponse(events: [], cursor: 0),
        SyncResponse(
            events: [SyncEvent(id: 41, type: .message, conversationId: 3, message: message(1), check: "41.abc")],
            cursor: 41, cursorCheck: "41.abc"),
        SyncResponse(
            events: [
                SyncEvent(id: 7, type: .message, conversationId: 3, message: message(2, text: "a/b \"q\" \\ \u{1} é 👍\n")),
                SyncEvent(
                    id: 8, type: .message, conversationId: 3,
                    message: message(3) {
                        $0.replyTo = 2
                        $0.editedAt = at
                        $0.reactions = [Reaction(emoji: "👍", userIds: [1, 2])]
                        $0.attachments = [Attachment(name: "a b/c.png", size: 12, type: "image/png", sha256: String(repeating: "a", count: 64))]
                    }, check: "8.x"),
                SyncEvent(
                    id: 9, type: .message, conversationId: 3,
                    change: MessageChange(kind: .react, userId: 2, emoji: "👍", at: at, seq: 3), check: "9.x"),
                SyncEvent(id: 10, type: .message, conversationId: 3, change: MessageChange(kind: .delete, userId: 1, at: at, seq: 4)),
                SyncEvent(id: 11, type: .message, conversationId: 3, change: MessageChange(kind: .edit, userId: 1, at: at, seq: 2, text: "new \"é\"")),
                SyncEvent(
                    id: 12, type: .message, conversationId: 3,
                    message: message(5) { $0.membership = MembershipEvent(kind: .renamed, name: "ops") }),
            ],
            cursor: 12),
    ]

    @Test(arguments: pages)
    func writesWhatTheEncoderWrites(_ page: SyncResponse) throws {
        let bytes = Data(try #require(page.jsonBytes()))
        let byHand = try #require(try JSONSerialization.jsonObject(with: bytes) as? NSDictionary)
        let encoded = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(page)) as? NSDictionary)
        #expect(byHand == encoded, "\(String(decoding: bytes, as: UTF8.self))")
        let decoded = try JSONDecoder().decode(SyncResponse.self, from: bytes)
        #expect(decoded.events == page.events && decoded.cursor == page.cursor && decoded.cursorCheck == page.cursorCheck)
    }

    @Test func leavesOtherEventsAndExtrasToTheEncoder() {
        let receipt = SyncEvent(id: 2, type: .receipt, conversationId: 3, receipt: Receipt(userId: 2, kind: .read, seq: 1, at: Self.at))
        let message = SyncEvent(id: 1, type: .message, conversationId: 3, message: Self.message(1))
        #expect(SyncResponse(events: [message, receipt], cursor: 2).jsonBytes() == nil)
        #expect(SyncResponse(events: [message], cursor: 1, typing: []).jsonBytes() == nil)
        #expect(SyncResponse(events: [message], cursor: 1, presenceDigest: "d").jsonBytes() == nil)
        #expect(SyncResponse(events: [message], cursor: 1).jsonBytes() != nil)
    }
}
