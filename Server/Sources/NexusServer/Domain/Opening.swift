import NexusWire

/// Opening a conversation: the direct one of two people (the same one each time), or a
/// new group.
struct Opening {
    let services: AppServices

    /// The conversation as the caller sees it, and whether it is new.
    func open(caller: Caller, body read: () async throws -> CreateConversationRequest) async throws -> (Conversation, created: Bool) {
        let me = caller.user
        if caller.access.conversations != nil {
            throw APIError(
                status: .forbidden, code: "insufficient_scope",
                message: "This token is limited to some conversations; it can't open others.")
        }
        let body = try await read()
        let (id, created, members) = body.kind == .group ? try await group(body, creator: me) : try await direct(body, me: me)
        if created {
            await services.events.publish(.committed(Commit(changes: [Commit.Change(conversationId: id, kind: .conversation)], wake: members)))
        }
        guard let conversation = try await services.stores.conversations.conversation(id: id, viewer: me.id) else {
            throw APIError.conversationNotFound
        }
        return (services.present(conversation), created)
    }

    private func direct(_ body: CreateConversationRequest, me: User) async throws -> (Int64, Bool, [Int64]) {
        guard body.members.count == 1 else {
            throw APIError.badRequest("A direct conversation takes exactly one other member.", code: "invalid_members")
        }
        let email = try IdentityInput.email(body.members[0])
        guard let other = try await services.stores.users.user(email: email) else {
            throw APIError(status: .notFound, code: "user_not_found", message: "No user with email \(email).")
        }
        guard other.id != me.id else {
            throw APIError.badRequest("You can't open a direct conversation with yourself.", code: "invalid_members")
        }
        // A bot answers for its owner: only its owner, or someone it already meets in a
        // conversation, may open one with it, so no stranger can make it talk.
        if other.bot == true, try await services.stores.membership.owner(ofBot: other.id) != me.id,
           try await !services.stores.conversations.share(me.id, other.id)
        {
            throw APIError(
                status: .forbidden, code: "not_bot_owner",
                message: "\(other.displayName) is someone else's bot; you can open a direct conversation with it once you share a "
                    + "conversation with it (its owner adds it to one of yours).")
        }
        let (id, created) = try await services.stores.conversations.openDirect(me.id, other.id)
        return (id, created, [me.id, other.id])
    }

    /// A group of the caller and two or more others. Every email must name a user, and
    /// every bot the caller's own, or nothing is created. The name defaults to the members' names.
    private func group(_ body: CreateConversationRequest, creator me: User) async throws -> (Int64, Bool, [Int64]) {
        let emails = Array(Set(try body.members.map(IdentityInput.email))).sorted().filter { $0 != me.email }
        guard emails.count >= 2 else {
            throw APIError.badRequest("A group takes at least two other members; for one, open a direct conversation.", code: "invalid_members")
        }
        let limit = services.limits.maxGroupMembers
        guard emails.count < limit else {
            throw APIError.badRequest(
                "A group takes at most \(limit - 1) other members: \(limit) with its creator on this server (nexusd --max-group-members).",
                code: "invalid_members")
        }
        var others: [User] = []
        for email in emails {
            guard let user = try await services.stores.users.user(email: email) else {
                throw APIError(status: .notFound, code: "user_not_found", message: "No user with email \(email).")
            }
            try await services.checkMayAdd(user, caller: me.id)
            others.append(user)
        }
        var name = try IdentityInput.title(body.name)
            ?? ([me] + others).map(\.displayName).joined(separator: ", ")
        if name.utf8.count > Limits.maxDisplayNameBytes { name = String(name.prefix(97)) + "…" }
        let id = try await services.stores.conversations.createGroup(creator: me.id, members: others.map(\.id), name: name)
        return (id, true, [me.id] + others.map(\.id))
    }
}
