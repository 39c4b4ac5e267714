/// The receipt watermarks of the conversations on screen, and what they mean for a
/// message of mine: sent, delivered (to every other member), read, or "Read by 2/4".
public final class ReceiptBook {
    var receipts: [Int64: [Int64: MemberReceipts]] = [:]
    /// The last seq of each conversation when its members were learnt: membership events
    /// up to it are already in them.
    var learnedAt: [Int64: Int64] = [:]
    private var kinds: [Int64: ConversationKind] = [:]
    public let me: Int64

    public init(me: Int64) { self.me = me }

    public func with(_ conversation: Conversation) -> ReceiptBook {
        learn(conversation)
        return self
    }

    public func learn(_ conversation: Conversation) {
        kinds[conversation.id] = conversation.kind
        learnedAt[conversation.id] = conversation.lastSeq
        var byUser: [Int64: MemberReceipts] = [:]
        for r in conversation.receipts ?? [] { byUser[r.userId] = r }
        // With receipts, who has them is who counts: the server leaves out hooks' bots.
        for m in conversation.members where byUser[m.id] == nil && conversation.receipts == nil {
            byUser[m.id] = MemberReceipts(userId: m.id, deliveredSeq: 0, readSeq: 0)
        }
        receipts[conversation.id] = byUser
    }

    public func apply(_ receipt: Receipt, in conversationId: Int64) {
        var r = receipts[conversationId]?[receipt.userId] ?? MemberReceipts(userId: receipt.userId, deliveredSeq: 0, readSeq: 0)
        switch receipt.kind {
        case .delivered: r.deliveredSeq = max(r.deliveredSeq, receipt.seq)
        case .read:
            r.readSeq = max(r.readSeq, receipt.seq)
            r.deliveredSeq = max(r.deliveredSeq, receipt.seq)
        }
        receipts[conversationId, default: [:]][receipt.userId] = r
    }

    /// The status of one of my messages, or nil for others' messages and unknown conversations.
    public func status(of message: Message) -> (status: String, label: String)? {
        guard message.senderId == me, let members = receipts[message.conversationId] else { return nil }
        let others = members.values.filter { $0.userId != me }
        guard !others.isEmpty else { return nil }
        let read = others.filter { $0.readSeq >= message.seq }.count
        let delivered = others.filter { $0.deliveredSeq >= message.seq }.count
        if kinds[message.conversationId] == .group {
            if read > 0 { return ("read", "Read by \(read)/\(others.count)") }
        } else if read == others.count {
            return ("read", "Read")
        }
        if delivered == others.count { return ("delivered", "Delivered") }
        return ("sent", "Sent")
    }
}
