import NexusWire

/// Delivered and read watermarks, and when each member's marks first reached a message.
protocol ReceiptStore: Sendable {
    /// Moves a member's watermarks forward (read implies delivered), never past the last
    /// seq; returns the receipts that moved, each also an event in the members' feeds.
    func advanceReceipts(conversationId: Int64, userId: Int64, delivered: Int64?, read: Int64?) async throws -> [Receipt]
    /// When each other member's watermarks first reached the message.
    func status(of message: Message) async throws -> [MessageStatus.Member]
}

/// A member's watermarks moved forward by a receipts request: read implies delivered,
/// neither goes back or past the conversation's last seq. `moved` holds a receipt for each
/// mark that moved, the ones both backends store and put in the feed.
struct AdvancedMarks {
    var delivered: Int64
    var read: Int64
    var moved: [Receipt]

    init(lastSeq: Int64, delivered current: Int64, read currentRead: Int64, asked: (delivered: Int64?, read: Int64?),
         userId: Int64, at now: Timestamp) {
        read = min(lastSeq, max(currentRead, asked.read ?? 0))
        delivered = min(lastSeq, max(current, asked.delivered ?? 0, read))
        moved = []
        if delivered > current { moved.append(Receipt(userId: userId, kind: .delivered, seq: delivered, at: now)) }
        if read > currentRead { moved.append(Receipt(userId: userId, kind: .read, seq: read, at: now)) }
    }

    /// From a row of the member's delivered_seq and read_seq and the conversation's last_seq.
    init(row: some StoreRow, asked: (delivered: Int64?, read: Int64?), userId: Int64, at now: Timestamp) throws {
        self.init(
            lastSeq: try row.int("last_seq") ?? 0, delivered: try row.int("delivered_seq") ?? 0, read: try row.int("read_seq") ?? 0,
            asked: asked, userId: userId, at: now)
    }
}

enum ReceiptRows {
    /// A line of a message's status from a row of the user's columns, delivered_at and read_at.
    static func member(_ row: some StoreRow) throws -> MessageStatus.Member {
        MessageStatus.Member(
            user: try Rows.user(row), deliveredAt: try Rows.timestamp(row, "delivered_at"), readAt: try Rows.timestamp(row, "read_at"))
    }
}
