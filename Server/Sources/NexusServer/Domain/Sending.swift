import NexusWire

/// Storing messages: one sent by a member, a batch from an outbox flush, or an incoming
/// hook's post as its bot. Each is checked the same way and published once committed.
struct Sending {
    let services: AppServices

    /// One message into a conversation the caller belongs to: the message, and whether the
    /// caller had sent it before under the same localId.
    func send(to id: Int64, caller: Caller, body read: () async throws -> SendRequest) async throws -> (message: Message, duplicate: Bool) {
        // The store checks that the sender is a member as it stores the message. A token
        // that may not send here is told so only once the caller is known to be a member
        // (this throws 404 or 403): a non-member's 404 stays the same for every token.
        if !caller.access.allows(.send, conversation: id) { _ = try await services.members(of: id, caller: caller, for: .send) }
        let body = try await read()
        try MessageRules.validate(body)
        let attachments = body.attachments ?? []
        try await MessageRules.check(attachments, sender: caller.user.id, store: services.stores.attachments)
        let outcomes = try await services.stores.messages.send(
            [NewMessage(
                conversationId: id, senderId: caller.user.id, localId: body.localId, text: body.text, replyTo: body.replyTo,
                attachments: attachments)])
        switch outcomes[0] {
        case .created(let message):
            try await published([message])
            return (message, false)
        case .duplicate(let message) where message.conversationId != id:
            throw MessageRules.localIdReused
        case .duplicate(let message):
            return (message, true)
        case .notMember:
            throw APIError.conversationNotFound
        }
    }

    /// Many messages at once, in one group commit, judged one by one: a bad item gets the
    /// error a single send would have had, and the rest still go in. One result per item,
    /// in order.
    func batch(_ items: [BatchItem], caller: Caller) async throws -> [BatchResult] {
        let me = caller.user
        var admission = try await BatchAdmission(items, caller: caller, services: services) { item in
            try MessageRules.validate(SendRequest(localId: item.localId, text: item.text, replyTo: item.replyTo, attachments: item.attachments))
            let attachments = item.attachments ?? []
            try await MessageRules.check(attachments, sender: me.id, store: services.stores.attachments)
            return NewMessage(
                conversationId: item.conversationId, senderId: me.id, localId: item.localId, text: item.text, replyTo: item.replyTo,
                attachments: attachments)
        }
        let accepted = admission.accepted
        let outcomes = try await services.stores.messages.send(accepted.map(\.value))
        var created: [Message] = []
        for ((index, message), outcome) in zip(accepted, outcomes) {
            switch outcome {
            case .created(let stored):
                created.append(stored)
                admission.results[index] = BatchResult(localId: message.localId, status: .created, message: stored)
            case .duplicate(let stored) where stored.conversationId != message.conversationId:
                admission.results[index] = MessageRules.rejected(message.localId, MessageRules.localIdReused)
            case .duplicate(let stored):
                admission.results[index] = BatchResult(localId: message.localId, status: .duplicate, message: stored)
            case .notMember:  // removed since the check above
                admission.results[index] = MessageRules.rejected(message.localId, APIError.conversationNotFound)
            }
        }
        try await published(created)
        return admission.results.map { $0! }
    }

    /// An incoming hook's texts, sent as its bot; `key` makes a retried post send nothing
    /// new. The messages stored, and whether any is new.
    func post(_ texts: [String], through target: IncomingHookTarget, key: String) async throws -> (messages: [Message], created: Bool) {
        let messages = texts.enumerated().map { index, text in
            NewMessage(
                conversationId: target.conversationId, senderId: target.botId,
                localId: texts.count == 1 ? key : "\(key).\(index + 1)", text: text)
        }
        for m in messages { try MessageRules.validate(SendRequest(localId: m.localId, text: m.text)) }
        var stored: [Message] = []
        var created: [Message] = []
        for outcome in try await services.stores.messages.send(messages) {
            switch outcome {
            case .created(let m):
                created.append(m)
                stored.append(m)
            case .duplicate(let m): stored.append(m)
            case .notMember: throw Self.botRemoved
            }
        }
        try await published(created)
        return (stored, !created.isEmpty)
    }

    static let botRemoved = APIError(
        status: .forbidden, code: "bot_not_member",
        message: "This hook's bot is no longer a member of its conversation: its owner can add it back (nexusctl add), or make a new hook.")

    /// Tells everyone concerned of messages just committed.
    private func published(_ messages: [Message]) async throws {
        guard !messages.isEmpty else { return }
        let conversations = messages.count == 1 ? [messages[0].conversationId] : Array(Set(messages.map(\.conversationId)))
        var wake: [Int64] = []
        for id in conversations { wake += try await services.membership.wakeMembers(of: id, store: services.stores.conversations) }
        var changes = messages.map { Commit.Change(conversationId: $0.conversationId, kind: .message, seq: $0.seq) }
        let replies = messages.compactMap { m in m.replyTo.map { (conversationId: m.conversationId, userId: m.senderId, seq: $0) } }
        if !replies.isEmpty { changes += await Receipting.answered(replies, in: services) }
        await services.events.publish(.committed(Commit(changes: changes, wake: wake)))
    }
}
