import NexusCore

enum MembersCommand {
    static let spec = CommandSpec(
        name: "members", summary: "List who is in a conversation, with online state and last read",
        usage: ["<conversation>"],
        details: """
            \(Conversations.argumentHelp)
            One line per member: name, email, online (or when last seen) and the seq they have read up to.
            Offline, the cached members are shown without online state, and it says so.
            With --json: {"conversationId", "kind", "name", "members": [{"user", "deliveredSeq", "readSeq",
            "joinedAt"}], "offline"}.
            Exit status: 0 listed; 3 no such conversation, or one you are not in; 4 not logged in; 75 the
            server could not be reached and the cache holds nothing of it.
            """,
        arguments: 1...1,
        requirements: [.session],
        jsonFields: ["conversationId", "kind", "name", "members", "offline"],
        examples: [("nexusctl members 12", "who is in group 12, who is online, who has read what")],
        run: run)

    struct View: Encodable {
        var conversationId: Int64
        var kind: ConversationKind
        var name: String?
        var members: [Member]
        var offline: Bool? = nil
    }

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let id = try Conversations.resolve(context.arguments[0], context)
        let api = try context.api()
        var view: View
        do {
            let response = try api.members(of: id)
            view = View(conversationId: id, kind: response.kind, name: response.name, members: response.members)
        } catch {
            guard error.isNetwork, let cached = ConversationCache(profile: context.profile).conversation(id) else { throw context.failure(error) }
            context.output.offline("\(error); showing cached members")
            let receipts = Dictionary((cached.receipts ?? []).map { ($0.userId, $0) }, uniquingKeysWith: { $1 })
            view = View(
                conversationId: id, kind: cached.kind, name: cached.name,
                members: cached.members.map { u in
                    var user = u
                    user.online = nil
                    return Member(
                        user: user, deliveredSeq: receipts[u.id]?.deliveredSeq ?? 0, readSeq: receipts[u.id]?.readSeq ?? 0,
                        joinedAt: Timestamp(milliseconds: 0))
                },
                offline: true)
        }
        let output = context.output
        if output.json {
            output.document(view)
            return .ok
        }
        let me = context.userIdIfKnown()
        let now = Timestamp.now()
        output.table(
            view.members.map { m in
                let seen = m.user.lastSeenAt.map { SmartTime.lastSeen($0, now: now) } ?? "never seen"
                let presence: TerminalText = m.user.online == true ? output.paint("● online", .green) : view.offline == true ? "-" : "\(seen)"
                let name = m.user.shownName + (m.user.id == me ? " (you)" : "")
                return ["\(name)", "\(m.user.email)", presence, m.readSeq > 0 ? "\(MessageReference(conversationId: view.conversationId, seq: m.readSeq))" : "-"]
            },
            header: ["NAME", "EMAIL", "SEEN", "READ UP TO"])
        return .ok
    }
}
