import NexusCore

/// `queue drop`: takes queued or failed messages out of the outbox for good.
enum QueueDrop {
    static let yes = Flag("yes", short: "y", help: "drop without asking")
    static let failed = Flag("failed", help: "drop every failed message")
    static let all = Flag("all", help: "drop every message in the outbox, queued or failed")

    static let spec = CommandSpec(
        name: "drop", summary: "Drop queued or failed messages: they are never sent",
        usage: ["<localId>... [--yes]", "--failed [--yes]", "--all [--yes]"],
        details: """
            Takes messages out of the outbox (see their localIds with `nexusctl queue`): a dropped
            message is never sent, also not by a `queue flush`, `send` or `tail -f` of this profile
            already running in another process. A message such a delivery is sending at this very
            moment is waited for: if the server took it, it is reported as sent (too late to drop;
            `nexusctl delete` takes it back), otherwise it is dropped. On a terminal it asks first;
            --yes drops without asking (needed when there is no terminal to ask on). --failed drops
            every failed message, --all every message of the outbox (queued or failed). A localId
            may be cut short to a prefix that only one message's starts with.
            Exit status: 0 all dropped; 1 some were already sent; 2 nothing to ask on and no --yes;
            3 a localId is not in the outbox (nothing was dropped).
            """,
        options: [yes, failed, all],
        arguments: 0...Int.max,
        jsonFields: ["localId", "status", "ref", "maybeSent"],
        examples: [
            ("nexusctl queue drop 3f2a…", "drop one message, after a question"),
            ("nexusctl queue drop --failed --yes", "drop every failed message, from a script"),
        ],
        run: run)

    struct View: Encodable {
        var localId: String
        /// dropped, or sent when the server already had it.
        var status: OutboxStatus
        var ref: MessageReference?
        /// A delivery that was sending it was killed mid-request: the server may have it.
        var maybeSent: Bool?
    }

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let ids = try chosen(context)
        let output = context.output
        if ids.isEmpty {
            output.note("Nothing to drop: the outbox holds no such message.")
            if output.json { output.document([View]()) }
            return .ok
        }
        if !context.invocation[yes] { try confirm(ids, context) }
        let outcomes: [Outbox.DropOutcome]
        do throws(Outbox.DropError) {
            outcomes = try Sending.drop(ids, from: Outbox(profile: context.profile), progress: UploadProgress(profile: context.profile), onWait: {
                output.note("Waiting for the delivery that is sending one of them right now to finish…")
            })
        } catch {
            switch error {
            case .notInOutbox(let id):
                throw CLIError(.notFound, "no message with localId \(id) in the outbox; nothing was dropped", hint: "see them with `nexusctl queue`.")
            case .store(let error):
                throw CLIError(error)
            }
        }
        var views: [View] = []
        var sent: [(String, MessageReference?)] = []
        for outcome in outcomes {
            switch outcome {
            case .dropped(let e, let maybeSent):
                views.append(View(localId: e.localId, status: .dropped, maybeSent: maybeSent ? true : nil))
                if maybeSent {
                    output.warn("\(e.localId): a delivery that was sending it was killed mid-request, so the server may have it; `nexusctl history` shows whether it is there")
                }
            case .alreadyDropped(let id):
                views.append(View(localId: id, status: .dropped))
            case .alreadySent(let e):
                let ref = e.conversationId.flatMap { c in e.seq.map { MessageReference(conversationId: c, seq: $0) } }
                views.append(View(localId: e.localId, status: .sent, ref: ref))
                sent.append((e.localId, ref))
            }
        }
        if output.json {
            output.document(views)
        } else {
            for v in views { output.line("\(v.status.rawValue) \(v.localId)" + (v.ref.map { " \($0)" } ?? "")) }
        }
        guard let first = sent.first else { return .ok }
        throw CLIError(
            .failure, "\(sent.count) message(s) were already sent, too late to drop (\(first.0) as \(first.1.map { "\($0)" } ?? "sent"))",
            hint: first.1.map { "take it back with `nexusctl delete \($0)`." })
    }

    /// The localIds given (prefixes made whole), or every failed message (--failed), or
    /// every message (--all).
    private static func chosen(_ context: CommandContext) throws(CLIError) -> [String] {
        let failed = context.invocation[Self.failed], all = context.invocation[Self.all]
        let given = context.arguments
        guard [failed, all, !given.isEmpty].count(where: { $0 }) == 1 else {
            throw .usage("give the localIds of the messages to drop, or --failed, or --all (one of them)", hint: "see them with `nexusctl queue`.")
        }
        let entries: [OutboxEntry]
        do { entries = try Outbox(profile: context.profile).entries() } catch { throw CLIError(error) }
        guard failed || all else { return try LocalIdArgument.resolve(given, in: entries) }
        return entries.filter { all ? $0.status != .sent : $0.status == .failed }.map(\.localId)
    }

    /// Asks on the terminal, naming what would go; no terminal and no --yes is a usage error.
    private static func confirm(_ ids: [String], _ context: CommandContext) throws(CLIError) {
        guard context.terminal.inputIsTerminal else {
            throw .usage("queue drop asks before it drops, and there is no terminal to ask on", hint: "give --yes to drop without asking.")
        }
        let entries = (try? Outbox(profile: context.profile).entries()) ?? []
        for id in ids {
            guard let e = entries.first(where: { $0.localId == id }) else { continue }
            context.terminal.writeErr("  \(e.localId)  \(e.status.rawValue)  \(QueueCommand.what(e).rendered)\n")
        }
        context.terminal.writeErr("Drop \(ids.count) message(s)? They will never be sent. [y/N] ")
        let answer = context.terminal.readInputLine()?.trimmingSpaces().lowercased() ?? ""
        guard answer == "y" || answer == "yes" else {
            throw CLIError(.failure, "nothing was dropped")
        }
    }
}
