import Foundation
import NexusWire

/// A change to a sent message, as the changes endpoint hands it to the store: the item has
/// passed the checks that need no database (its text, its emoji, the caller's membership).
struct NewChange: Sendable {
    var userId: Int64
    var item: ChangeItem
}

enum ChangeOutcome: Sendable {
    /// Applied now: the message as it is after, and the attachments a delete took off it
    /// (their blobs go once no other message refers to them: AttachmentStore.release).
    case created(Message, dropped: [Attachment] = [])
    /// This user applied this localId before: the message as it is now, unchanged.
    case duplicate(Message)
    /// Refused, with the error a single change would have had.
    case rejected(APIError)
}

/// Edits, deletes and reactions: each applied once per (user, localId), in the order
/// given, with a 'change' event in the feed in the same transaction.
protocol MessageChangeStore: Sendable {
    func apply(_ changes: [NewChange], limits: ServerLimits) async throws -> [ChangeOutcome]
}

/// What a change does to a message, and who may make it: written once for both backends,
/// which only read the message, store what this returns, and record the change.
enum ChangeRules {
    /// The message after `item`, or the refusal. A change that alters nothing (a second
    /// delete, the same reaction twice) returns the message as it is.
    static func apply(
        _ item: ChangeItem, by user: Int64, to message: Message, at now: Timestamp, limits: ServerLimits
    ) -> Result<Message, APIError> {
        let name = "\(message.reference)"
        switch item.kind {
        case .edit, .delete:
            guard message.senderId == user else {
                return .failure(APIError(
                    status: .forbidden, code: "not_sender",
                    message: "Only the sender of message \(name) can \(item.kind == .edit ? "edit" : "delete") it."))
            }
        case .react, .unreact: break
        }
        // "Alice added Carol" is the record of a change, not anyone's words.
        if message.membership != nil {
            return .failure(APIError(
                status: .conflict, code: "membership_event", message: "Message \(name) records a membership change; it can't be changed."))
        }
        if message.deletedAt != nil {
            if item.kind == .delete || item.kind == .unreact { return .success(message) }
            return .failure(APIError(
                status: .conflict, code: "message_deleted", message: "Message \(name) was deleted; it can't be \(item.kind == .edit ? "edited" : "reacted to")."))
        }
        if item.kind == .react, let refusal = reactionRefusal(item.emoji ?? "", by: user, on: message.reactions ?? [], name: name, limits: limits) {
            return .failure(refusal)
        }
        let change = MessageChange(kind: item.kind, userId: user, emoji: item.emoji, at: now, seq: message.seq, text: item.kind == .edit ? item.text ?? "" : nil)
        return .success(message.applying(change))
    }

    /// Why `user` may not add `emoji` to a message with `reactions`; nil when it may (or
    /// already has: a repeat changes nothing).
    private static func reactionRefusal(
        _ emoji: String, by user: Int64, on reactions: [Reaction], name: String, limits: ServerLimits
    ) -> APIError? {
        if let existing = reactions.first(where: { $0.emoji == emoji }) {
            if existing.userIds.contains(user) { return nil }
        } else if reactions.count >= limits.maxReactionsPerMessage {
            return APIError(
                status: .conflict, code: "too_many_reactions",
                message: "Message \(name) has \(limits.maxReactionsPerMessage) different reactions, the most it takes; react with one it has already.")
        }
        let mine = reactions.filter { $0.userIds.contains(user) }.count
        guard mine < limits.maxReactionsPerMemberPerMessage else {
            return APIError(
                status: .conflict, code: "too_many_reactions",
                message: "You have \(mine) reactions on message \(name), the most one member may add; remove one first.")
        }
        return nil
    }

    static func messageNotFound(_ item: ChangeItem) -> APIError {
        APIError(
            status: .notFound, code: "message_not_found",
            message: "No message \(MessageReference(conversationId: item.conversationId, seq: item.seq)) in this conversation.")
    }
}

/// The `reactions` column: the message's reactions as JSON, read with the row so a page
/// of history costs no second query.
enum ReactionsColumn {
    static func decode(_ text: String) -> [Reaction]? {
        guard !text.isEmpty, let list = try? JSONDecoder().decode([Reaction].self, from: Data(text.utf8)), !list.isEmpty else { return nil }
        return list
    }

    static func encode(_ reactions: [Reaction]?) -> String? {
        guard let reactions, !reactions.isEmpty, let data = try? JSONEncoder().encode(reactions) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
