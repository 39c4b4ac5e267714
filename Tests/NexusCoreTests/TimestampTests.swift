import Foundation
import Testing
import NexusCore

struct TimestampTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (Int64(951_782_400_123), "2000-02-29T00:00:00.123Z"),
        (Int64(1_795_348_984_005), "2026-11-22T12:03:04.005Z"),
        (Int64(-1), "1969-12-31T23:59:59.999Z"),
    ])
    func formatsAndParses(_ ms: Int64, _ text: String) {
        #expect(Timestamp(milliseconds: ms).iso8601 == text)
        #expect(Timestamp(iso8601: text)?.milliseconds == ms)
    }

    @Test func parsesOffsetsAndDates() {
        #expect(Timestamp(iso8601: "2026-11-22T14:03:04+02:00") == Timestamp(iso8601: "2026-11-22T12:03:04Z"))
        #expect(Timestamp(iso8601: "2026-11-22T12:03:04.5Z")?.milliseconds == Timestamp(iso8601: "2026-11-22T12:03:04Z")!.milliseconds + 500)
        #expect(Timestamp(iso8601: "2026-11-22")?.iso8601 == "2026-11-22T00:00:00.000Z")
    }

    /// Found by fuzzing: more than three digits of fraction, and offsets past year 0000.
    @Test func fuzzFindings() {
        #expect(Timestamp(iso8601: "2026-11-22T12:03:04.1234Z")?.iso8601 == "2026-11-22T12:03:04.123Z")
        #expect(Timestamp(iso8601: "0000-01-01T00:00:00+01:00") == nil)
        #expect(Timestamp(iso8601: "9999-12-31T23:59:59-01:00") == nil)
        #expect(Timestamp(iso8601: "0000-01-01T00:00:00Z")?.iso8601 == "0000-01-01T00:00:00.000Z")
    }

    @Test(arguments: ["", "yesterday", "2026-13-01", "2026-11-22T25:00:00Z", "2026-11-22T12:00:00", "2026-11-22T12:00:00Zjunk"])
    func rejects(_ text: String) {
        #expect(Timestamp(iso8601: text) == nil)
    }
}

/// The hand-written encoder of the conversation list must say exactly what Codable says.
struct JSONWriterTests {
    @Test func conversationListMatchesTheCodableEncoding() throws {
        let message = Message(id: 7, conversationId: 3, seq: 12, senderId: -1, localId: "a\"b\\c", text: "line\nnext\t\u{1}é🙂", sentAt: Timestamp(milliseconds: 1_795_348_984_005))
        let list = ConversationsResponse(
            conversations: [
                ConversationSummary(id: 3, kind: .group, name: "Launch \"team\"", memberIds: [1, 2, 9_000_000_000], lastSeq: 12,
                                    lastMessage: message, createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: -1),
                                    unreadCount: 4, lastMessageReadBy: 2),
                ConversationSummary(id: 4, kind: .direct, name: nil, memberIds: [], lastSeq: 0, lastMessage: nil,
                                    createdAt: Timestamp(milliseconds: 5), updatedAt: Timestamp(milliseconds: 6), unreadCount: 0, lastMessageReadBy: nil),
            ],
            users: [User(id: 1, email: "a@b.c", displayName: "Ä", online: true, lastSeenAt: Timestamp(milliseconds: 9)),
                    User(id: 2, email: "d@e.f", displayName: "")])
        let fast = try JSONDecoder().decode(ConversationsResponse.self, from: Data(list.jsonBytes()))
        #expect(fast == list)
        let empty = ConversationsResponse(conversations: [], users: [])
        #expect(try JSONDecoder().decode(ConversationsResponse.self, from: Data(empty.jsonBytes())) == empty)
    }
}
