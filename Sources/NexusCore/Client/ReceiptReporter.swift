/// The part of nexusd's API that receipts use; core tests put a fake behind it.
public protocol ReceiptsAPI: AnyObject {
    /// Moves my delivered (and read) watermarks of one conversation.
    func receipts(conversationId: Int64, delivered: Int64?, read: Int64?) throws(APIError) -> Conversation
}

extension NexusAPI: ReceiptsAPI {}

/// Tells the server which messages reached this device: when the client has stored
/// messages from others, their conversation's delivered watermark moves to the newest.
/// Best effort: a receipt that can't be sent now is sent with the next messages.
public final class ReceiptReporter {
    private var reported: [Int64: Int64] = [:]
    private let api: (any ReceiptsAPI)?
    public let me: Int64

    /// Without an API (no server configured), it reports nothing.
    public init(api: (any ReceiptsAPI)?, me: Int64) {
        self.api = api
        self.me = me
    }

    /// Marks others' messages among `messages` delivered (and read, with `read`), once per
    /// conversation and only forward.
    public func stored(_ messages: [Message], read: Bool = false) {
        var newest: [Int64: Int64] = [:]
        for m in messages where m.senderId != me { newest[m.conversationId] = max(newest[m.conversationId] ?? 0, m.seq) }
        guard let api else { return }
        for (conversationId, seq) in newest.sorted(by: { $0.key < $1.key }) where seq > (reported[conversationId] ?? 0) {
            if (try? api.receipts(conversationId: conversationId, delivered: seq, read: read ? seq : nil)) != nil {
                reported[conversationId] = seq
            }
        }
    }
}
