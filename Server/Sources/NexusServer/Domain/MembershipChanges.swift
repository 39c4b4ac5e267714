import NexusWire

/// A group's members after its creation: adding, removing, leaving and renaming. Any
/// member may add, remove and rename, and anyone may leave (docs/protocol.md, "Group
/// membership"); a bot joins only through its owner. Each change is an event with a seq,
/// idempotent by localId as a send is. A non-member gets the 404 of an unknown id.
struct MembershipChanges {
    let services: AppServices

    /// `body` is read only once the caller is known to be a member: a non-member gets the
    /// 404 of an unknown id whatever it sent, the same for every token, then the scope's 403.
    func change(
        _ kind: MembershipEvent.Kind, in id: Int64, caller: Caller, body read: () async throws -> MembershipRequest
    ) async throws -> MembershipResponse {
        let current = try await services.members(of: id, caller: caller, for: .all)
        let body = try await read()
        try MessageRules.validate(localId: body.localId)
        guard let conversation = try await services.stores.conversations.conversation(id: id, viewer: caller.user.id) else {
            throw APIError.conversationNotFound
        }
        guard conversation.kind == .group else {
            throw APIError(
                status: .conflict, code: "direct_conversation",
                message: "A direct conversation always has its two members and no name; create a group for more people.")
        }
        var change = MembershipChange(conversationId: id, actor: caller.user, localId: body.localId, kind: kind)
        switch kind {
        case .added, .removed:
            change.users = try await users(body.emails ?? [], for: kind, caller: caller.user)
            if kind == .added {
                let joining = change.users.filter { !current.contains($0.id) }.count
                let limit = services.limits.maxGroupMembers
                guard current.count + joining <= limit else {
                    throw APIError.badRequest(
                        "A group takes at most \(limit) members on this server (nexusd --max-group-members); it has \(current.count).",
                        code: "invalid_members")
                }
            }
        case .renamed:
            guard var name = try IdentityInput.title(body.name) else {
                throw APIError.badRequest("A group's name can't be empty.", code: "invalid_name")
            }
            if name.utf8.count > Limits.maxDisplayNameBytes { name = String(name.prefix(97)) + "…" }
            change.name = name
        case .left:
            break
        }

        switch try await services.stores.membership.apply(change) {
        case .created(let message, let before, let after):
            await services.events.publish(.committed(Commit(
                changes: [Commit.Change(conversationId: id, kind: kind == .renamed ? .rename : .membership, seq: message.seq)],
                wake: Array(Set(before + after)), membersChanged: [id])))
            return MembershipResponse(
                localId: body.localId, status: .created, message: message, conversation: try await shown(id, viewer: caller.user.id))
        case .duplicate(let message):
            guard message.conversationId == id, message.membership != nil else {
                throw APIError(
                    status: .conflict, code: "local_id_used",
                    message: "This localId was used for another message or change; use a new one.")
            }
            return MembershipResponse(
                localId: body.localId, status: .duplicate, message: message, conversation: try await shown(id, viewer: caller.user.id))
        case .unchanged(let note):
            return MembershipResponse(
                localId: body.localId, status: .unchanged, conversation: try await shown(id, viewer: caller.user.id), note: note)
        }
    }

    private func shown(_ id: Int64, viewer: Int64) async throws -> Conversation? {
        try await services.stores.conversations.conversation(id: id, viewer: viewer).map(services.present)
    }

    /// The users `emails` name, each once; 404 `user_not_found` for an unknown one, so
    /// nothing changes unless every one exists. A bot may be added by its owner only.
    private func users(_ emails: [String], for kind: MembershipEvent.Kind, caller: User) async throws -> [User] {
        let normalized = Array(Set(try emails.map(IdentityInput.email))).sorted()
        guard !normalized.isEmpty else {
            throw APIError.badRequest("Name at least one member by email.", code: "invalid_members")
        }
        // A change names the others of a full group at most (nexusd --max-group-members).
        let limit = services.limits.maxGroupMembers
        guard normalized.count < limit else {
            throw APIError.badRequest(
                "A change takes at most \(limit - 1) members: a group takes at most \(limit) on this server (nexusd --max-group-members).",
                code: "invalid_members")
        }
        if kind == .removed, normalized.contains(caller.email) {
            throw APIError.badRequest("To take yourself out of a group, leave it.", code: "invalid_members")
        }
        var users: [User] = []
        for email in normalized {
            guard let user = try await services.stores.users.user(email: email) else {
                throw APIError(status: .notFound, code: "user_not_found", message: "No user with email \(email).")
            }
            if kind == .added { try await services.checkMayAdd(user, caller: caller.id) }
            users.append(user)
        }
        return users
    }
}
