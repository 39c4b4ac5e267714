#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NexusCore

/// A message as `tail --json` prints it: the wire fields, a type, the sender's email and
/// name, and for my own messages their status ("sent", "delivered", "read") and its words.
struct MessageLine: Encodable {
    var message: Message
    var sender: String?
    var senderName: String?
    var status: String? = nil
    var statusText: String? = nil

    init(message: Message, sender: User?, status: String? = nil, statusText: String? = nil) {
        self.message = message
        self.sender = sender?.email
        self.senderName = sender?.displayName
        self.status = status
        self.statusText = statusText
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    private enum Keys: String, CodingKey { case type, ref, sender, senderName, status, statusText }

    func encode(to encoder: any Encoder) throws {
        try message.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode("message", forKey: .type)
        try container.encode(message.reference, forKey: .ref)
        try container.encodeIfPresent(sender, forKey: .sender)
        try container.encodeIfPresent(senderName, forKey: .senderName)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(statusText, forKey: .statusText)
    }
}

/// A change to an earlier message, as `tail --json` prints it: what changed, who changed
/// it, and the message as it is now when the local cache holds it.
struct ChangeLine: Encodable {
    var type = "change"
    var kind: MessageChange.Kind
    var ref: MessageReference
    var conversationId: Int64
    var seq: Int64
    var userId: Int64
    var user: String?
    var emoji: String?
    var text: String?
    var at: Timestamp
    var message: Message?

    init(change: MessageChange, in conversationId: Int64, message: Message?, user: String?) {
        kind = change.kind
        ref = MessageReference(conversationId: conversationId, seq: change.seq)
        self.conversationId = conversationId
        seq = change.seq
        userId = change.userId
        self.user = user
        emoji = change.emoji
        text = change.text
        at = change.at
        self.message = message
    }
}

/// A watermark that moved, as `tail --json` prints it.
struct ReceiptLine: Encodable {
    var type = "receipt"
    var conversationId: Int64
    var receipt: Receipt
    var user: String?

    private enum Keys: String, CodingKey { case type, conversationId, userId, user, kind, seq, at }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(type, forKey: .type)
        try c.encode(conversationId, forKey: .conversationId)
        try c.encode(receipt.userId, forKey: .userId)
        try c.encodeIfPresent(user, forKey: .user)
        try c.encode(receipt.kind, forKey: .kind)
        try c.encode(receipt.seq, forKey: .seq)
        try c.encode(receipt.at, forKey: .at)
    }
}

/// Someone typing, as `tail --json` prints it.
struct TypingLine: Encodable {
    var type = "typing"
    var conversationId: Int64
    var userId: Int64
    var user: String?
    var until: Timestamp

    init(typing: Typing, user: String?) {
        conversationId = typing.conversationId
        userId = typing.userId
        self.user = user
        until = typing.until
    }
}
