import NexusCore

/// An in-process stand-in for nexusd's read endpoints, behind `ReadingAPI` and
/// `ReceiptsAPI`, so core tests can drive `Reading` and `ReceiptReporter` with faults
/// injected: the server down, a refusal.
final class FakeReadingServer: ReadingAPI, ReceiptsAPI, ConversationActionsAPI {
    static let alice = User(id: 1, email: "alice@example.com", displayName: "Alice")
    static let bob = User(id: 2, email: "bob@example.com", displayName: "Bob")

    /// Messages by conversation, seq 1, 2, 3 …
    var messages: [Int64: [Message]] = [:]
    var conversationList: [Conversation] = []
    /// While true, every call fails as if nothing listened.
    var down = false
    /// Failures for the next calls, in order, whichever endpoint they reach.
    var faults: [APIError] = []
    /// Every call, by endpoint name, in order.
    private(set) var calls: [String] = []
    private(set) var receipts: [(conversationId: Int64, delivered: Int64?, read: Int64?)] = []

    /// A direct conversation between Alice and Bob with `count` messages from Bob.
    func addDirect(_ id: Int64, count: Int) {
        messages[id] = (1...Int64(max(count, 1))).prefix(count).map { seq in
            Message(id: id * 1000 + seq, conversationId: id, seq: seq, senderId: 2, localId: "l\(id)-\(seq)", text: "m\(seq)", sentAt: .now())
        }
        conversationList.append(Conversation(
            id: id, kind: .direct, name: nil, members: [Self.alice, Self.bob], lastSeq: Int64(count),
            lastMessage: messages[id]?.last, createdAt: .now(), updatedAt: .now()))
    }

    private func fault(_ name: String) throws(APIError) {
        calls.append(name)
        if down { throw .unreachable("can't reach the server (connection refused)") }
        if !faults.isEmpty { throw faults.removeFirst() }
    }

    func conversations() throws(APIError) -> ConversationsResponse {
        try fault("conversations")
        return ConversationsResponse(conversations: conversationList.map { $0.summary(viewer: 1) }, users: [Self.alice, Self.bob])
    }

    func conversation(_ id: Int64) throws(APIError) -> Conversation {
        try fault("conversation")
        guard let c = conversationList.first(where: { $0.id == id }) else {
            throw .server(status: 404, code: "not_found", message: "No such conversation.", retryAfter: nil)
        }
        return c
    }

    func messages(conversationId: Int64, before: NexusAPI.Anchor?, limit: Int?) throws(APIError) -> MessagesPage {
        try fault("messages")
        let all = messages[conversationId] ?? []
        let below: [Message]
        switch before {
        case .seq(let seq): below = all.filter { $0.seq < seq }
        case .messageId(let id):
            guard let m = all.first(where: { $0.id == id }) else {
                throw .server(status: 404, code: "message_not_found", message: "No such message.", retryAfter: nil)
            }
            below = all.filter { $0.seq < m.seq }
        case .time(let t): below = all.filter { $0.sentAt < t }
        case nil: below = all
        }
        let page = Array(below.suffix(limit ?? 50))
        return MessagesPage(messages: page, hasMore: (page.first?.seq ?? 1) > 1)
    }

    func openDirect(with email: String) throws(APIError) -> ConversationResponse {
        try fault("openDirect")
        guard email == Self.bob.email, let c = conversationList.first(where: { $0.kind == .direct }) else {
            throw .server(status: 404, code: "not_found", message: "No such user.", retryAfter: nil)
        }
        return ConversationResponse(conversation: c, created: false)
    }

    func createGroup(with emails: [String], name: String?) throws(APIError) -> ConversationResponse {
        try fault("createGroup")
        let members = [Self.alice] + emails.enumerated().map { User(id: Int64($0.offset + 10), email: $0.element, displayName: $0.element) }
        let c = Conversation(
            id: Int64(100 + conversationList.count), kind: .group, name: name, members: members, lastSeq: 0, lastMessage: nil,
            createdAt: .now(), updatedAt: .now())
        conversationList.append(c)
        return ConversationResponse(conversation: c, created: true)
    }

    func receipts(conversationId: Int64, delivered: Int64?, read: Int64?) throws(APIError) -> Conversation {
        try fault("receipts")
        receipts.append((conversationId, delivered, read))
        guard let c = conversationList.first(where: { $0.id == conversationId }) else {
            throw .server(status: 404, code: "not_found", message: "No such conversation.", retryAfter: nil)
        }
        return c
    }
}
