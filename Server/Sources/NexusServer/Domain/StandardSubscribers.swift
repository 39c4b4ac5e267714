import NexusWire

/// Drops cached members of conversations whose members changed, before anyone is woken to
/// read them.
struct MembershipCacheInvalidation: ServerEventSubscriber {
    let cache: MembershipCache

    func handle(_ event: ServerEvent) async {
        switch event {
        case .committed(let commit): for id in commit.membersChanged { cache.forget(id) }
        case .membersChangedElsewhere(let ids): for id in ids { cache.forget(id) }
        case .typing, .wake: break
        }
    }
}

/// Wakes the long polls of everyone an event concerns.
struct FeedWakeUp: ServerEventSubscriber {
    let notifier: FeedNotifier

    func handle(_ event: ServerEvent) async {
        let users: [Int64]
        switch event {
        case .committed(let commit): users = commit.wake
        case .typing(_, let others, _): users = others
        case .wake(let woken, _): users = woken
        case .membersChangedElsewhere: return
        }
        if !users.isEmpty { notifier.notify(users: users) }
    }
}

/// Wakes the outgoing hooks' delivery worker for what hooks deliver, when a conversation
/// with an outgoing hook has some. Another replica's commits wake that replica's worker.
struct HookWakeUp: ServerEventSubscriber {
    let hooks: HookRuntime
    /// What outgoing hooks are sent (docs/webhooks.md): a rename is a membership line.
    static let delivered: Set<Commit.Kind> = [.message, .edit, .delete, .reaction, .membership, .rename]

    func handle(_ event: ServerEvent) async {
        guard case .committed(let commit) = event else { return }
        let conversations = commit.changes.lazy.filter { Self.delivered.contains($0.kind) }.map(\.conversationId)
        hooks.committed(in: conversations)
    }
}

/// Tells the other replicas what they keep in memory must follow.
///
/// A commit's notes are not sent from here: on PostgreSQL the transaction that commits
/// writes them itself (`PostgresDatabase.appendEvents`, the send statement, the membership
/// and token stores), and PostgreSQL delivers them at commit. A note sent after the commit
/// would be lost to a crash in between, and would cost a round trip on every send. What is
/// not stored, typing, is sent from here.
struct ClusterRelay: ServerEventSubscriber {
    let bus: any ClusterBus

    func handle(_ event: ServerEvent) async {
        if case .typing(let typing, _, true) = event { await bus.publish(.typing(typing)) }
    }
}
