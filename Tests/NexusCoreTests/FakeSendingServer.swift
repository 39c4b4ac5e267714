import NexusCore

/// An in-process stand-in for nexusd's send endpoints, behind `SendingAPI`, so core tests
/// can drive `Sending` with faults injected: the server down, a batch failing, a refusal.
/// It keeps what nexusd promises: one message per localId, per-conversation seqs 1, 2, 3.
final class FakeSendingServer: SendingAPI {
    /// Direct conversations by the other person's email.
    var directs: [String: Int64] = [:]
    /// Emails with no account: opening a conversation with them is a 404.
    var strangers: Set<String> = []
    /// While true, every call fails as if nothing listened.
    var down = false
    /// Failures for the next calls, in order, whichever endpoint they reach.
    var faults: [APIError] = []
    /// Stored messages in the order they were accepted.
    private(set) var stored: [Message] = []
    private(set) var batches: [[BatchItem]] = []
    private(set) var opened: [String] = []

    func messages(in conversation: Int64) -> [Message] { stored.filter { $0.conversationId == conversation } }

    private func fault() throws(APIError) {
        if down { throw .unreachable("can't reach the server (connection refused)") }
        if !faults.isEmpty { throw faults.removeFirst() }
    }

    func openDirect(with email: String) throws(APIError) -> ConversationResponse {
        try fault()
        opened.append(email)
        if strangers.contains(email) { throw .server(status: 404, code: "not_found", message: "No such user.", retryAfter: nil) }
        let id = directs[email] ?? Int64(directs.count + 1)
        directs[email] = id
        let members = [User(id: 1, email: "alice@example.com", displayName: "Alice"), User(id: 2, email: email, displayName: email)]
        let conversation = Conversation(
            id: id, kind: .direct, name: nil, members: members, lastSeq: 0, lastMessage: nil, createdAt: .now(), updatedAt: .now())
        return ConversationResponse(conversation: conversation, created: false)
    }

    /// Changes applied, in the order they arrived.
    private(set) var changes: [ChangeItem] = []

    /// Edits change the stored text; other kinds are only recorded. A localId seen before
    /// is a duplicate; an unknown message a 404.
    func applyChanges(_ items: [ChangeItem]) throws(APIError) -> [BatchResult] {
        try fault()
        return items.map { item in
            guard let i = stored.firstIndex(where: { $0.conversationId == item.conversationId && $0.seq == item.seq }) else {
                return BatchResult(localId: item.localId, status: .rejected, error: .init(code: "message_not_found", message: "No message."), httpStatus: 404)
            }
            if changes.contains(where: { $0.localId == item.localId }) {
                return BatchResult(localId: item.localId, status: .duplicate, message: stored[i])
            }
            changes.append(item)
            if item.kind == .edit, let text = item.text { stored[i].text = text }
            return BatchResult(localId: item.localId, status: .created, message: stored[i])
        }
    }

    // What the sending tests never reach: whose the account is, membership changes, files.
    func me() throws(APIError) -> User { throw .badResponse("this fake knows no account") }

    func changeMembership(_ entry: OutboxEntry) throws(APIError) -> MembershipResponse {
        throw .badResponse("this fake takes no membership changes")
    }

    func setMute(_ entry: OutboxEntry) throws(APIError) -> MuteResponse {
        throw .badResponse("this fake takes no mutes")
    }

    func upload(_ file: OutboxFile, onProgress: ((Int64, Int64) -> Void)?) throws(UploadFailure) {
        throw .api(.badResponse("this fake takes no uploads"))
    }

    func sendBatch(_ items: [BatchItem]) throws(APIError) -> [BatchResult] {
        try fault()
        batches.append(items)
        return items.map { item in
            if let old = stored.first(where: { $0.localId == item.localId }) {
                return BatchResult(localId: item.localId, status: .duplicate, message: old)
            }
            let seq = Int64(messages(in: item.conversationId).count + 1)
            let m = Message(
                id: Int64(stored.count + 1), conversationId: item.conversationId, seq: seq, senderId: 1, localId: item.localId,
                text: item.text, sentAt: .now())
            stored.append(m)
            return BatchResult(localId: item.localId, status: .created, message: m)
        }
    }
}
