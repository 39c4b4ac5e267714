import NexusCore

enum CacheCommand {
    static let defaultRetention = "30d"

    static let olderThan = Value("older-than", "AGE", help: "the age past which messages go (default \(defaultRetention))")

    static let spec = CommandSpec(
        name: "cache", summary: "Manage the local message cache",
        usage: ["prune [--older-than AGE]"],
        details: "Every message nexusctl sees is kept under $NEXUS_HOME/<profile>/cache for offline reading.",
        subcommands: [
            CommandSpec(
                name: "prune", summary: "Drop cached messages older than an age (default \(defaultRetention))",
                usage: ["[--older-than AGE]"],
                details: "AGE is a number and a unit: 90m, 12h, 30d, 8w. Each cache file is rewritten atomically.\nThe outbox is never pruned. The cache also prunes itself: the first command of a day drops\nmessages older than 30 days.",
                options: [olderThan],
                jsonFields: ["removed"], run: prune),
        ],
        run: nil)

    static func prune(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let text = context.invocation[olderThan] ?? defaultRetention
        guard let seconds = parseAge(text) else {
            throw .usage("--older-than takes an age such as 90m, 12h, 30d or 8w; got '\(text)'")
        }
        let cutoff = Timestamp(milliseconds: Timestamp.now().milliseconds - seconds * 1000)
        let removed: Int
        do {
            removed = try MessageCache(profile: context.profile).prune(olderThan: cutoff)
        } catch {
            throw CLIError(error)
        }
        if context.output.json {
            context.output.document(["removed": removed])
        } else {
            context.output.note("Removed \(removed) cached message(s) sent before \(cutoff.iso8601).")
        }
        return .ok
    }

    static func parseAge(_ text: String) -> Int64? {
        guard let unit = text.last, let amount = Int64(text.dropLast()), amount >= 0 else { return nil }
        switch unit {
        case "s": return amount
        case "m": return amount * 60
        case "h": return amount * 3600
        case "d": return amount * 86400
        case "w": return amount * 604_800
        default: return nil
        }
    }
}
