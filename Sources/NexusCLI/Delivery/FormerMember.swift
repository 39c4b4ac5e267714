import NexusCore

/// The server answers "not found" to anyone who is not a member of a conversation, so that
/// a stranger learns nothing of it. Someone who left, or was removed, knows it exists: their
/// own cache kept the group, and mostly the event, which tell them what happened and how to
/// get back in.
enum FormerMember {
    /// `failed`: an entry the server answered "not found"; nil when this account never was
    /// in its conversation, as far as this device knows.
    static func refusal(_ failed: OutboxEntry, _ context: CommandContext) -> CLIError? {
        guard let c = failed.conversationId,
              let me = context.session?.user, me.id != 0 else { return nil }
        let conversations = ConversationCache(profile: context.profile)
        let people = conversations.people()
        let cache = MessageCache(profile: context.profile)
        // A direct conversation can't be left: its "not found" is another story.
        var group: (name: String?, memberIds: [Int64])?
        if let known = conversations.conversation(c) {
            guard known.kind == .group else { return nil }
            group = (known.name, known.members.map(\.id))
        } else if let summary = conversations.list().first(where: { $0.id == c }) {
            guard summary.kind == .group else { return nil }
            group = (summary.name, summary.memberIds)
        }
        let departure = try? cache.departure(of: me.id, from: c)
        // Messages kept from it: the conversation was this account's to read.
        let hadMessages = ((try? cache.lastSeq(c)) ?? 0) > 0
        guard group != nil || departure != nil || hadMessages else { return nil }
        let title = group?.name.map { "\"\($0)\" (conversation \(c))" } ?? "conversation \(c)"
        let what: String
        if let departure, departure.membership?.kind == .left {
            what = "you left \(title) at \(departure.reference)"
        } else if let departure {
            what = "\(people[departure.senderId]?.shownName ?? "user \(departure.senderId)") removed you from \(title) at \(departure.reference)"
        } else {
            what = "you are no longer a member of \(title): you left it or were removed"
        }
        let others = (group?.memberIds ?? []).filter { $0 != me.id }.compactMap { people[$0]?.shownName }
        let ask = others.isEmpty ? "a member" : "a member (" + others.prefix(3).joined(separator: ", ") + (others.count > 3 ? ", …" : "") + ")"
        let email = me.email.isEmpty ? "<your email>" : me.email
        // Refused at once, a message is not kept; met by a later flush, it stays failed.
        let kept = (try? Outbox(profile: context.profile).read().entries.contains { $0.localId == failed.localId && $0.status == .failed }) ?? false
        let outbox =
            kept
            ? "It stays failed in the outbox: `nexusctl retry` sends it once you are back, `nexusctl queue drop --failed` drops it."
            : "Nothing was kept in the outbox."
        return CLIError(
            .notFound, "\(what); only its members can write to it",
            hint: "ask \(ask) to add you back: they run `nexusctl add \(c) \(email)`. \(outbox)")
    }
}
