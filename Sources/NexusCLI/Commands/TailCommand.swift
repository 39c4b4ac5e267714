import NexusCore

enum TailCommand {
    static let follow = Flag("follow", short: "f", help: "keep running and print messages as they arrive")
    static let lines = Value("lines", short: "n", "N", help: "print the newest N messages first (default 50, as the product documents load)")
    static let exec = Value("exec", "CMD", help: "with -f, run CMD for each incoming message (JSON on stdin, NEXUS_* variables)")
    static let cursor = Value("cursor", "NAME", help: "with -f, keep the saved position under NAME (one per tail -f)")
    static let read = Flag("read", help: "mark messages read as they are printed (`mark-read = yes` in the config does it always)")
    static let receipts = Flag("receipts", help: "also print a line when someone's delivered or read mark moves (always in JSON)")
    static let presence = Flag("presence", help: "with -f, also print a line when someone comes online or goes offline")

    static let spec = CommandSpec(
        name: "tail", summary: "Print recent messages; with -f, keep printing new ones as they arrive",
        usage: ["[<conversation>] [-f] [-n N]"],
        details: """
            Without <conversation>, follows all your conversations. \(Conversations.argumentHelp)
            Each message line starts with the message's name, CONVERSATION/SEQ (e.g. 12/345), which
            `edit`, `delete`, `react` and `send --reply-to` take. With --json, prints one JSON object
            a line (NDJSON): "type" is "message", "change", "receipt" or "typing". Your own messages
            show their status: Sent, Delivered, Read (or "Read by 2/4" in groups). Messages printed
            count as delivered to you; with --read, as read. A change to an earlier message (an
            edit, a delete, a reaction) prints as an event line naming it, once: "12/345 [10:02]
            Alice edited 12/345: deploy 100%", "… Bob reacted 👍 to 12/345".

            With -f the position is saved in the profile after every line, so a restarted
            `tail -f` resumes where the last one stopped; on a terminal it says so on stderr,
            naming the last message the other printed: "following, from 12/345". Stopped by
            Ctrl-C, SIGTERM or SIGHUP it repeats nothing; killed with SIGKILL (or by a crash) it may print the one line it
            was writing again. Every JSON line carries conversationId and seq, so a program can
            drop such a repeat. --cursor NAME keeps a position of its own under NAME (the default
            is one unnamed position per conversation followed, and one for all): two `tail -f`
            can't share one position, and a second is refused. Give -n to start from the newest
            N messages instead (this also replaces a damaged saved position; without -n, a
            damaged one is an error naming its file). If the server's database was restored or
            reset, so the position is no longer in its history, the tail warns and starts again
            from the newest N messages; some may repeat, and seqs may be reused. Connection
            losses and server restarts are retried until interrupted, the wait between tries
            doubling up to 2.5 s, so the tail is back within about 3 s of the server's return.
            Someone it doesn't know yet (a hook's bot that joined after it started) is looked up
            once and named from then on.

            Without -f, your own messages still in the outbox follow the others, marked as sending:
            "12/…  [sending…] You: text  · Sending (localId 3f2a9c1e)" (a failed one says why). -f
            and --json show a message only once the server has it, with its seq, so none is ever
            shown twice.

            On a terminal, who is typing shows on the last line, "Bob is typing…", rewritten in
            place: it ends when it runs out (3 s) or when Bob's message arrives, which takes its
            place, so it never stays in the scrollback.

            While `tail -f` runs you count as online for the others; when it ends you go offline:
            at once when it is stopped by Ctrl-C, SIGTERM or SIGHUP, within about 5 s when it is
            killed or its connection is lost. With --presence it also prints a line when someone
            you share a conversation with comes online or goes offline (at the start, one for each
            who is online); in JSON, "type" is "presence", with "userId", "user", "online" and
            "lastSeenAt". Without --presence no such line is printed, in text or JSON. On a
            terminal, a direct conversation opens with the other person's state: "Bob · Online",
            or "Bob · Last seen 2h ago".

            --exec CMD runs CMD with /bin/sh for each incoming message (not your own), one at a time:
            the message's JSON on its stdin; NEXUS_CONVERSATION_ID, NEXUS_MESSAGE_ID, NEXUS_SEQ,
            NEXUS_LOCAL_ID, NEXUS_SENDER, NEXUS_SENDER_NAME, NEXUS_SENDER_ID, NEXUS_SENT_AT,
            NEXUS_TEXT and NEXUS_PROFILE in its environment; its output goes to stderr. A hook that
            fails or runs over 30 s is killed and reported (whether or not it reads its stdin), and
            the tail goes on. The hook runs before the message is printed, so after a kill it may
            run again for that message.

            --notify shows a notification for each message from someone else that arrives while
            following (never your own, never the backlog printed first): the sender (and the
            group) as its title, the text's first line as its body, escaped like every text
            others wrote; --notify=private shows only "New message from Alice"; --notify=mentions
            only direct messages and group messages that mention you (@alice). Nothing from a
            muted conversation (`nexusctl mute`) notifies. At most one a
            conversation every 5 s: what comes meanwhile follows as one, with a count. How, by
            --notify-method: the terminal's own notifications (osc777, osc9, osc99; they travel
            over ssh), the desktop's (dbus, through notify-send), or the bell; auto picks the
            terminal's where it knows the terminal shows them, else the desktop's when a session
            bus is there, else the bell. `notify = yes|private|mentions|no` and `notify-method = …` in
            the config set them for every `tail -f`. See docs/notifications.md.
            """,
        options: [follow, lines, exec, cursor, read, receipts, presence, NotifySetup.notify, NotifySetup.method],
        arguments: 0...1,
        requirements: [.session],
        deliversQueueAfterwards: true,
        // A Message's, then those of Change, Receipt, Typing and Presence lines.
        jsonFields: HistoryCommand.messageFields + ["userId", "user", "kind", "emoji", "at", "message", "until", "online", "lastSeenAt"],
        examples: [
            ("nexusctl tail -f --json | jq -r 'select(.type == \"message\") | .text'", "follow everything, the messages' text only"),
            ("nexusctl tail -f --notify=private", "a notification for each incoming message, naming only its sender"),
            ("nexusctl tail -f --exec 'notify-send \"$NEXUS_SENDER_NAME\" \"$NEXUS_TEXT\"'", "your own notification command for each incoming message"),
            ("nexusctl tail -f --cursor notify --exec ./notify.sh", "a second follower beside a terminal tail, with its own position"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        // Held open, the tail keeps its user online until it ends; named before its first request.
        if context.invocation[follow] {
            _ = try context.requireSession()
            try LivePresence.start(context)
        }
        let me = try context.me()
        let lines = try context.intOption(Self.lines, default: 50, range: 0...Limits.maxPageSize)
        let conversationId = try context.arguments.first.map { arg throws(CLIError) in try Conversations.resolve(arg, context) }
        let follow = context.invocation[Self.follow]
        let hook = context.invocation[exec].map { Hook(command: $0, context: context) }
        if hook != nil && !follow { throw .usage("--exec runs for messages as they arrive; it needs -f") }
        let position = follow ? try openPosition(conversationId: conversationId, context) : nil
        if context.invocation[presence] && !follow { throw .usage("--presence prints people coming and going as it happens; it needs -f") }

        if !follow && context.invocation[cursor] != nil {
            throw .usage("--cursor names the saved position of a `tail -f`; it needs -f")
        }
        let printer = MessagePrinter(context: context, me: me, showConversation: conversationId == nil)
        printer.markRead = context.invocation[read] || context.config.markRead
        printer.showReceipts = context.invocation[receipts]
        let members = try context.read { r throws(ReadError) in try r.members(of: conversationId) }
        printer.learn(members.value)
        if let conversationId { ChatHeader.show(members, conversationId: conversationId, me: me.id, context: context) }
        var options = FeedFollower.Options(
            conversationId: conversationId, lines: lines, startFromNewest: context.invocation[Self.lines] != nil, follow: follow)
        options.presence = context.invocation[presence]
        let notifier = try NotifySetup.notifier(context, me: me, follow: follow)
        options.mutes = notifier != nil
        let feed = TailFeed(printer: printer, hook: hook, options: options, context: context)
        feed.notifier = notifier
        let follower = FeedFollower(source: try context.api(), position: position, options: options, consumer: feed)
        follower.cache = FeedCache(profile: context.profile, me: me.id)
        do throws(FeedError) {
            try follower.run(offline: members.offlineReason != nil)
        } catch {
            switch error {
            case .api(let e): throw context.failure(e)
            case .store(let e): throw CLIError(e)
            }
        }
        // My messages still queued follow the server's, marked as sending. Not with -f (each
        // prints once, when the server has it) nor in JSON (every line there has a seq).
        if !follow && !context.output.json {
            for e in QueuedLines.entries(conversationId, except: printer.printedLocalIds, context) {
                context.output.line(QueuedLines.line(e, output: context.output))
            }
        }
        return .ok
    }

    /// The saved position this `tail -f` follows, held for as long as it runs.
    private static func openPosition(conversationId: Int64?, _ context: CommandContext) throws(CLIError) -> FeedPosition {
        let name = context.invocation[cursor]
        if let name, let problem = FeedPosition.problem(withName: name) { throw .usage(problem) }
        do throws(FeedPosition.OpenError) {
            return try FeedPosition(profile: context.profile, conversationId: conversationId, name: name)
        } catch {
            switch error {
            case .store(let e): throw CLIError(e)
            case .busy(let path):
                throw .usage(
                    "another `tail -f` is following with the saved position \(path); two would each skip what the other printed",
                    hint: "give this one a position of its own: --cursor NAME")
            }
        }
    }
}
