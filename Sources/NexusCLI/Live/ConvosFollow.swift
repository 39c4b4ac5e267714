import NexusCore

/// `convos -f`: the conversation list, kept current by following the feed (with presence)
/// and reading the list again whenever something in it moved.
final class ConvosFollow: FeedConsumer {
    let context: CommandContext
    let me: Int64
    let limit: Int
    /// The rows last shown, by conversation, and who was online then: what a change is measured against.
    private var shown: [Int64: ConversationSummary] = [:]
    private var shownOnline: Set<Int64> = []
    private var typing: TypingBoard
    private var people: [Int64: User] = [:]
    private var moved = false

    init(context: CommandContext, me: Int64, limit: Int) {
        self.context = context
        self.me = me
        self.limit = limit
        self.typing = TypingBoard(me: me)
    }

    func run() throws(CLIError) -> ExitCode {
        try LivePresence.start(context)
        var options = FeedFollower.Options(conversationId: nil, lines: 0, startFromNewest: true, follow: true)
        options.presence = true
        let follower = FeedFollower(source: try context.api(), position: nil, options: options, consumer: self)
        show()
        do throws(FeedError) {
            try follower.run(offline: false)
        } catch {
            switch error {
            case .api(let e): throw context.failure(e)
            case .store(let e): throw CLIError(e)
            }
        }
        return .ok
    }

    func begin(_ batch: SyncResponse, live: Bool) {
        let (fresh, changed) = typing.take(batch)
        if context.output.json {
            for t in fresh { context.output.record(TypingLine(typing: t, user: people[t.userId]?.email)) }
        } else if changed {
            moved = true
        }
    }

    func nextExpiry() -> Timestamp? { typing.nextExpiry }

    func prepare(_ event: SyncEvent, live: Bool) {}

    func write(_ event: SyncEvent, live: Bool) {
        if live { moved = true }
    }

    func end(_ batch: SyncResponse, live: Bool) {
        guard moved else { return }
        moved = false
        show()
    }

    func presence(_ states: [PresenceState], initial: Bool) {
        if context.output.json {
            for s in states where !(initial && !s.online) {
                context.output.record(PresenceLine(userId: s.userId, user: people[s.userId]?.email, online: s.online, lastSeenAt: s.lastSeenAt))
            }
        } else if !initial {
            show()
        }
    }

    func notice(_ notice: FeedNotice) {
        switch notice {
        case .startedOffline(let server, _): context.output.offline("can't reach \(server); waiting for the server")
        case .retrying(let error): context.output.warn("\(error); retrying until the server is back")
        case .reconnected(let server): context.output.note("Reconnected to \(server).")
        case .cacheProblem(let problem): context.output.warn("\(problem)")
        case .historyChanged, .damagedPositionReplaced: show()
        case .resuming: break
        }
    }

    /// Reads the list again and shows what changed, as the output asks.
    private func show() {
        guard let fetched = try? context.read({ r throws(ReadError) in try r.conversations() }) else { return }
        let list = fetched.value
        people = Dictionary(list.users.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        let rows = Array(ConvosCommand.filter(
            list.conversations, me: me, people: people, search: context.invocation[ConvosCommand.search],
            unreadOnly: context.invocation[ConvosCommand.unread]).prefix(limit))
        let online = Set(list.users.filter { $0.online == true && $0.id != me }.map(\.id))
        let output = context.output
        if output.json {
            for row in rows where shown[row.id] != row {
                output.record(ConversationLine(row: Titled(base: row, title: row.title(viewer: me, users: people))))
            }
        } else if context.terminal.outputIsTerminal {
            // Home and clear, then the list: redrawn in place.
            context.terminal.writeOut("\u{1B}[H\u{1B}[2J")
            ConvosCommand.printTable(
                rows, me: me, people: people, muted: ConvosCommand.muted(list), offline: fetched.offlineReason != nil, output: output)
            for t in typing.active {
                let name = people[t.userId]?.shownName ?? "user \(t.userId)"
                output.line(output.paint(TerminalText("#\(t.conversationId) \(name) is typing…"), .dim))
            }
        } else if rows != shown.values.sorted(by: { ($0.updatedAt, $0.id) > ($1.updatedAt, $1.id) }) || online != shownOnline
            || shown.isEmpty
        {
            // A pipe or a file: the whole list again, after a blank line, each time it changed.
            if !shown.isEmpty || !shownOnline.isEmpty { output.line() }
            ConvosCommand.printTable(
                rows, me: me, people: people, muted: ConvosCommand.muted(list), offline: fetched.offlineReason != nil, output: output)
        }
        shown = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        shownOnline = online
    }
}

/// A row of the conversation list as `convos -f --json` prints it.
struct ConversationLine: Encodable {
    var row: Titled<ConversationSummary>

    private enum Keys: String, CodingKey { case type }

    func encode(to encoder: any Encoder) throws {
        try row.encode(to: encoder)
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode("conversation", forKey: .type)
    }
}
