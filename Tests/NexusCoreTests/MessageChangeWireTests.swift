import Foundation
import NexusCore
import Testing

/// The wire side of message changes: `CONVERSATION/SEQ` references, and the conversation list's
/// hand-written encoder carrying replies, edits, tombstones and reactions as Codable does.
struct MessageChangeWireTests {
    @Test(arguments: [("12/345", MessageReference(conversationId: 12, seq: 345)), ("1/1", MessageReference(conversationId: 1, seq: 1))])
    func parsesReferences(_ text: String, _ expected: MessageReference) {
        #expect(MessageReference(text) == expected)
        #expect(expected.description == text)
    }

    @Test(arguments: ["", "12", "12/", "/3", "12/0", "0/3", "12/-3", "+1/2", "1/2/3", " 1/2", "1/2 ", "a/b", "1/99999999999999999999"])
    func refusesWhatIsNotAReference(_ text: String) {
        #expect(MessageReference(text) == nil)
    }

    @Test func theListEncoderCarriesChanges() throws {
        let message = Message(
            id: 7, conversationId: 3, seq: 12, senderId: 1, localId: "l", text: "", sentAt: Timestamp(milliseconds: 1000), replyTo: 11,
            editedAt: Timestamp(milliseconds: 2000), deletedAt: Timestamp(milliseconds: 3000),
            reactions: [Reaction(emoji: "👍", userIds: [1, 2]), Reaction(emoji: "ack \"x\"", userIds: [9])])
        let list = ConversationsResponse(
            conversations: [
                ConversationSummary(id: 3, kind: .direct, name: nil, memberIds: [1, 2], lastSeq: 12, lastMessage: message,
                                    createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 1), unreadCount: 0, lastMessageReadBy: nil),
            ],
            users: [])
        #expect(try JSONDecoder().decode(ConversationsResponse.self, from: Data(list.jsonBytes())) == list)
    }
}
