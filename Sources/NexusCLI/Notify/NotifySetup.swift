import NexusCore

/// `tail -f --notify[=private|mentions]` and `--notify-method`, or their settings in the config:
/// the notifier they ask for, or nil.
enum NotifySetup {
    static let notify = OptionalValue(
        "notify", "private", bare: "on",
        help: "with -f, a notification for each message from someone else; =private leaves its text out, =mentions keeps only direct messages and mentions of you (`notify = …` in the config)")
    static let method = Value(
        "notify-method", "METHOD", help: "how --notify shows it: auto (default), osc777, osc9 or osc99 (the terminal's own), dbus (notify-send), bell")

    static func notifier(_ context: CommandContext, me: User, follow: Bool) throws(CLIError) -> Notifier? {
        let asked = context.invocation[notify]
        let given = asked ?? context.config.notify ?? "off"
        guard let word = Config.notifyWord(given) else {
            throw .usage("--notify takes nothing, =private, =mentions or =off; got '\(given)'")
        }
        let methodName = context.invocation[method] ?? context.config.notifyMethod ?? "auto"
        guard methodName == "auto" || NotifyMethod(rawValue: methodName) != nil else {
            throw .usage("--notify-method takes one of \(Config.notifyMethods.joined(separator: ", ")); got '\(methodName)'")
        }
        guard word != "off" else { return nil }
        // The config's setting applies where it can; the option asked for it here.
        guard follow else {
            if asked != nil { throw .usage("--notify tells of messages as they arrive; it needs -f") }
            return nil
        }
        let chosen = NotifyMethod(rawValue: methodName)
            ?? .auto(environment: context.environment, hasNotifySend: NotifySink.hasNotifySend(path: context.environment["PATH"]))
        guard let sink = NotifySink(method: chosen) else {
            context.output.warn("no terminal to show notifications on (\(chosen.rawValue) writes to /dev/tty); none will be shown")
            return nil
        }
        let notifier = Notifier(hideText: word == "private", onlyMentions: word == "mentions", me: me) { sink.show($0) }
        // As last heard, until the server's answer says otherwise.
        notifier.follow(ConversationCache(profile: context.profile).mutes())
        return notifier
    }
}
