import NexusCore

/// Receipts (delivered and read watermarks) and typing.
struct Receipting {
    let services: AppServices

    /// Moves the caller's watermarks forward; the conversation as it now is.
    func advance(in id: Int64, caller: Caller, body read: () async throws -> ReceiptsRequest) async throws -> Conversation {
        let me = caller.user
        let members = try await services.members(of: id, caller: caller, for: .read)
        let body = try await read()
        guard (body.delivered ?? 0) >= 0, (body.read ?? 0) >= 0, body.delivered != nil || body.read != nil else {
            throw APIError.badRequest("Give delivered and/or read, as seqs of 0 or more.", code: "invalid_body")
        }
        let moved = try await services.stores.receipts.advanceReceipts(conversationId: id, userId: me.id, delivered: body.delivered, read: body.read)
        if !moved.isEmpty {
            let changes = moved.map { Commit.Change(conversationId: id, kind: .receipt, seq: $0.seq) }
            await services.events.publish(.committed(Commit(changes: changes, wake: members)))
        }
        guard let conversation = try await services.stores.conversations.conversation(id: id, viewer: me.id) else {
            throw APIError.conversationNotFound
        }
        return services.present(conversation)
    }

    /// "I am typing": shown to the other members for 3 seconds, as the product documents say.
    func typing(in id: Int64, caller: Caller) async throws -> Typing {
        let members = try await services.members(of: id, caller: caller, for: .send)
        let now = services.clock()
        let typing = Typing(conversationId: id, userId: caller.user.id, until: Timestamp(milliseconds: now.milliseconds + TypingBoard.durationMs))
        await services.show(typing, members: members, local: true)
        return typing
    }
}
