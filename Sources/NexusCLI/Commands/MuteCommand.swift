import NexusCore

enum MuteCommand {
    static let duration = Value("for", "DURATION", help: "mute for this long: 30m, 8h, 2d or 1w")
    static let until = Value("until", "TIME", help: "mute until this ISO-8601 time, e.g. 2026-12-24T09:00:00Z")
    static let exceptMentions = Flag("except-mentions", help: "a message that mentions you still notifies")

    static let spec = CommandSpec(
        name: "mute", summary: "Mute a conversation on every device; queued safely first, like a send",
        usage: ["<conversation> [--for 8h | --until TIME] [--except-mentions]"],
        details: """
            \(Conversations.argumentHelp) A muted conversation notifies of nothing (`tail -f --notify`,
            `chat --notify`, push) until the time given, or until `nexusctl unmute` without one. Its
            unread count still counts, and `convos` marks it muted. The mute is kept on the server for
            your account, so every device and profile of yours follows it; the ones following at the
            moment hear of it at once. Muting again replaces the earlier mute.
            \(MuteRun.exitStatus)
            """,
        options: [duration, until, exceptMentions],
        arguments: 1...1,
        requirements: [.session],
        jsonFields: ["kind", "localId", "conversationId", "status", "until", "exceptMentions", "note", "error", "nextAttemptAt"],
        examples: [
            ("nexusctl mute 12 --for 8h", "quiet group 12 for the night"),
            ("nexusctl mute 12 --except-mentions", "only a mention of you notifies, until unmuted"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let invocation = context.invocation
        if invocation[duration] != nil, invocation[until] != nil {
            throw .usage("give --for or --until, not both")
        }
        var end: Timestamp?
        if let text = invocation[duration] {
            guard let seconds = TokenNames.seconds(text), seconds > 0 else {
                throw .usage("--for takes a duration such as 30m, 8h, 2d or 1w; got '\(text)'")
            }
            end = Timestamp(milliseconds: Timestamp.now().milliseconds + seconds * 1000)
        } else if let text = invocation[until] {
            guard let time = Timestamp(iso8601: text) else {
                throw .usage("--until takes an ISO-8601 time or date; got '\(text)'", hint: "for example --until 2026-12-24 or --until 2026-12-24T09:00:00Z")
            }
            guard time > .now() else { throw .usage("--until \(text) is in the past", hint: "give a time to come, or leave it out to mute until unmuted.") }
            end = time
        }
        let id = try Conversations.resolve(context.arguments[0], context)
        return try MuteRun.run(context, mute: true, conversationId: id, until: end, exceptMentions: invocation[exceptMentions])
    }
}
