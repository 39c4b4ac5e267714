import LibC
import NexusCore

enum ChatCommand {
    static let spec = CommandSpec(
        name: "chat", summary: "Chat in a full-screen terminal UI: the conversation list and a chat screen",
        usage: ["[<conversation>]"],
        details: """
            Opens the conversation list (most recent first, as `convos` orders it: name, ● when the
            other person of a direct conversation is online, the unread count as "(2)", when the last
            message came, and the last message, with its sender's name in a group). ↑/↓ choose, Enter
            opens, n moves to the next conversation with unread messages, / filters by name, q or
            Ctrl-C quits, ? lists every key (on the chat screen, on an empty line); a footer names
            the few that matter. With <conversation> it opens that one at once.

            c (or +) starts a conversation: a picker over the server's users (as `users` lists them;
            typing searches them, as --search does). Space marks people; Enter with one opens the
            direct conversation (the one you have, never a second, as `new EMAIL` does), with several
            asks for an optional group name and creates the group, as `new EMAIL EMAIL… --name`
            does; then it opens. It needs the server: offline it says so.
            \(Conversations.argumentHelp)

            The chat screen shows the name and "Online", "Last seen 5m ago" or the member count, who
            is typing, and the messages oldest to newest, a line for each day; yours are indented and
            carry their state: "sending…", ✓ (the server has it), ✓✓ (delivered), "✓✓ Read", "✓✓ Read
            by 2/3" in groups, or "✗ failed: why"; Ctrl-R retries the failed ones shown, as `retry`
            does with their localIds; ↑ on an empty line edits your last message (Enter saves it
            through the outbox, as `edit` does; Esc leaves it as it was). Opening a conversation, and messages arriving while it is open,
            mark it read. Enter sends the line through the outbox, exactly as `send` does:
            it is on disk before anything is tried, shown at once as "sending…". A line over the
            64 KiB limit is not sent: a notice says why, with its size, and the line stays to shorten.
            While you type, the others are told so, at most once every 2 s. PgUp scrolls up and, at
            the top, loads the next older 50, until "No more messages"; PgDn scrolls down; Ctrl-N
            opens the next conversation with unread messages; Esc goes back to the list. Line
            editing: ←/→, Home/End (Ctrl-A/Ctrl-E), Backspace, Delete, Ctrl-W (word), Ctrl-U, Ctrl-K.

            When the server can't be reached a banner says so, naming it; cached conversations still
            open, and what you write stays "sending…" until the server is back, when it goes, in order.
            `chat` follows the feed with a position of its own, held in memory: it runs beside a
            `tail -f`, a cron `queue flush` and another `chat` of the same profile, taking nothing
            from them. While it runs you count as online.

            It needs a terminal: with stdin or stdout not a terminal, or TERM=dumb, it refuses (exit
            2); use `tail -f` to follow and `send` to write instead. It uses termios and common
            xterm sequences, no terminfo: the alternate screen and raw mode, put back on exit, on
            Ctrl-C, SIGINT, SIGTERM and SIGHUP, and on a crash. Ctrl-Z suspends it and `fg` redraws;
            a resize lays the screen out again. NO_COLOR turns colours off. Text others wrote is
            escaped as in every other command: it can't move the cursor or fake a line.

            --notify (or `notify = …` in the config) shows a notification for each message from
            someone else in a conversation that is not on screen, as `tail -f --notify` does
            (=private leaves the text out, =mentions keeps direct messages and mentions of you;
            --notify-method chooses how; nothing from a muted conversation). See docs/notifications.md.
            """,
        options: [NotifySetup.notify, NotifySetup.method],
        arguments: 0...1,
        requirements: [.session],
        examples: [("nexusctl chat", "the conversation list"), ("nexusctl chat bob@example.com", "straight into the conversation with Bob")],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let term = context.environment["TERM"] ?? ""
        if !context.terminal.inputIsTerminal || !context.terminal.outputIsTerminal || term == "dumb" || term.isEmpty {
            let why = term == "dumb" ? "TERM is dumb" : !context.terminal.inputIsTerminal ? "standard input is not a terminal" : "standard output is not a terminal"
            throw CLIError(
                .usage, "chat is a full-screen terminal UI, and \(why)",
                hint: "to follow messages use `nexusctl tail -f`; to write one, `nexusctl send <conversation> TEXT`.")
        }
        if context.output.json { throw .usage("chat is for people at a terminal; it has no --json", hint: "`nexusctl tail -f --json` is the stream for programs.") }
        let me = try context.me()
        let opening = try context.arguments.first.map { arg throws(CLIError) in try Conversations.resolve(arg, context) }
        try LivePresence.start(context)
        let model = ChatModel(me: me.id)
        model.people[me.id] = me
        let worker = try ChatWorker(model: model, context: context)
        // The feed's own connection: the worker's may be busy with a read or a delivery.
        let api = try context.api()
        let feedAPI = NexusAPI(addresses: api.addresses, token: api.token, tls: context.tlsOptions())
        feedAPI.presenceClient = api.presenceClient
        let feed = ChatFeed(model: model, worker: worker, api: feedAPI)
        feed.notifier = try NotifySetup.notifier(context, me: me, follow: true)
        model.mutes = feed.notifier?.mutes ?? Mute.byConversation(ConversationCache(profile: context.profile).mutes())
        let loop = ChatLoop(model: model, worker: worker, output: context.output)
        try TTY.start()
        defer { TTY.restore() }
        feed.start(api: feedAPI, cache: FeedCache(profile: context.profile, me: me.id)) { error in
            loop.fatal(error)
        }
        worker.refreshList()
        if let opening { loop.open(opening) }
        let result = loop.run()
        TTY.restore()
        TerminationGuard.sayFarewell()
        if let error = result {
            switch error {
            case .api(let e): throw context.failure(e)
            case .store(let e): throw CLIError(e)
            }
        }
        return .ok
    }
}
