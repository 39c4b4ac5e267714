import NexusCore

/// The CLI's side of `tail`: what the FeedFollower hands out, printed by MessagePrinter,
/// and its notices put into words.
final class TailFeed: FeedConsumer {
    let printer: MessagePrinter
    let options: FeedFollower.Options
    let context: CommandContext
    private var typing: TypingBoard
    /// `--notify`: a notice for each message from someone else while following.
    var notifier: Notifier?

    init(printer: MessagePrinter, hook: Hook?, options: FeedFollower.Options, context: CommandContext) {
        self.printer = printer
        self.options = options
        self.context = context
        self.typing = TypingBoard(me: printer.me.id)
        printer.hook = hook
    }

    func begin(_ batch: SyncResponse, live: Bool) {
        notifier?.flush()
        printer.begin(batch.events)
        printer.learnStrangers(in: batch)
        // Before the batch's lines: a message that ends someone's typing takes its place.
        let (fresh, changed) = typing.take(batch)
        if changed { printer.show(typing: typing.active, fresh: fresh) }
    }

    func mutes(_ mutes: [Mute]) { notifier?.follow(mutes) }

    func nextExpiry() -> Timestamp? { [typing.nextExpiry, notifier?.nextDue].compactMap { $0 }.min() }

    func prepare(_ event: SyncEvent, live: Bool) {
        // Hooks run for what arrives while following, not for the backlog printed first.
        guard live, event.type == .message, event.change == nil, let message = event.message else { return }
        printer.runHook(for: message)
        let sender = printer.people[message.senderId]?.shownName ?? "user \(message.senderId)"
        notifier?.take(message, sender: sender, group: printer.groupNames[message.conversationId])
    }

    func write(_ event: SyncEvent, live: Bool) {
        printer.print(event)
    }

    func end(_ batch: SyncResponse, live: Bool) {
        printer.delivered(batch.events.compactMap { $0.type == .message && $0.change == nil ? $0.message : nil })
    }

    func showCached(_ messages: [Message]) {
        printer.print(messages: messages)
        printer.delivered(messages)
    }

    func presence(_ states: [PresenceState], initial: Bool) {
        printer.show(presence: states, initial: initial)
    }

    func notice(_ notice: FeedNotice) {
        let output = context.output
        switch notice {
        case .startedOffline(let server, _):
            output.offline("can't reach \(server); showing cached messages" + (options.follow ? ", then waiting for the server" : ""))
        case .retrying(let error):
            output.warn("\(error); retrying until the server is back")
        case .resuming(let after):
            // A resumed tail prints nothing until something new comes: on a terminal, say so.
            if context.terminal.errorIsTerminal { output.note("following, from \(after.map { "\($0)" } ?? "where the last `tail -f` stopped")") }
        case .reconnected(let server):
            output.note("Reconnected to \(server).")
            // The connection is back: deliver what was queued while it was gone.
            OutboxSending.opportunistic(context, ignoreBackoff: true)
        case .historyChanged(let lines):
            printer.forgetPrinted()
            output.warn(
                "the server no longer knows this tail's position: its database was restored or reset. "
                    + "Starting again from its newest \(lines) message(s); some may repeat, and seqs may be reused.")
        case .cacheProblem(let problem):
            output.warn("\(problem)")
        case .damagedPositionReplaced(let error):
            output.warn("\(error.path) holds no feed position; starting from the newest \(options.lines) message(s), as -n says, and replacing it")
        }
    }
}
