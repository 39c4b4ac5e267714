import NexusWire

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

    /// A reply or a reaction says without a word that its author has read the conversation
    /// up to the message it answers: their read mark moves there (never back). The marks
    /// that moved, as changes for the commit that carries the replies and reactions. After
    /// that commit, and not part of it: a mark that fails to move costs the request nothing.
    static func answered(_ marks: [(conversationId: Int64, userId: Int64, seq: Int64)], in services: AppServices) async -> [Commit.Change] {
        var furthest: [Pair: Int64] = [:]
        for mark in marks {
            let pair = Pair(conversationId: mark.conversationId, userId: mark.userId)
            furthest[pair] = max(furthest[pair] ?? 0, mark.seq)
        }
        var changes: [Commit.Change] = []
        for (pair, seq) in furthest.sorted(by: { ($0.key.conversationId, $0.key.userId) < ($1.key.conversationId, $1.key.userId) }) {
            let moved = (try? await services.stores.receipts.advanceReceipts(
                conversationId: pair.conversationId, userId: pair.userId, delivered: nil, read: seq)) ?? []
            changes += moved.map { Commit.Change(conversationId: pair.conversationId, kind: .receipt, seq: $0.seq) }
        }
        return changes
    }

    private struct Pair: Hashable {
        var conversationId: Int64
        var userId: Int64
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
