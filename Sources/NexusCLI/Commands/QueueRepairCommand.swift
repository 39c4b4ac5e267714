import NexusCore

/// `queue repair`: shows the outbox's damaged records and, when asked, drops them.
enum QueueRepair {
    static let drop = Flag("drop", help: "drop the damaged records shown")

    static let spec = CommandSpec(
        name: "repair", summary: "Show the outbox's damaged records, and drop them with --drop",
        usage: ["[--drop]"],
        details: """
            A line of the outbox that can't be read (a changed byte, a bad disk) is a damaged record.
            It is kept, never sent, and `queue flush` exits 6 while it is there. This lists each one
            with its line number, its localId and text where they can still be read. If its message
            still matters, send it again with `nexusctl send`; then drop the damaged records with
            --drop, which keeps every readable message as it is. A torn last line left by a crash is
            not damage: it is cut off on the next write, and --drop cuts it off too.
            Exit status: 0 no damaged records left; 6 damaged records remain (shown, not dropped).
            """,
        options: [drop],
        jsonFields: ["damaged", "dropped"],
        examples: [
            ("nexusctl queue repair", "see what is damaged"),
            ("nexusctl queue repair --drop", "drop it, once its messages are sent again or not needed"),
        ],
        run: run)

    struct View: Encodable {
        var damaged: [DamagedRecord]
        var dropped: Bool
    }

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let outbox = Outbox(profile: context.profile)
        let drop = context.invocation[Self.drop]
        let damaged: [DamagedRecord]
        do {
            damaged = drop ? try outbox.repair() : try outbox.read().damaged
        } catch {
            throw CLIError(error)
        }
        let output = context.output
        if output.json {
            output.document(View(damaged: damaged, dropped: drop && !damaged.isEmpty))
        } else if damaged.isEmpty {
            output.note("The outbox has no damaged records.")
        } else {
            output.table(
                damaged.map { ["\($0.line)", "\($0.localId ?? "?")", "\($0.op ?? "?")", preview($0.text, limit: 200)] },
                header: ["LINE", "LOCAL ID", "OP", "AS WRITTEN"])
        }
        if damaged.isEmpty { return .ok }
        if drop {
            output.note("Dropped \(damaged.count) damaged record(s); every readable message is kept.")
            return .ok
        }
        output.note("Send again what still matters, then drop these with `nexusctl queue repair --drop`.")
        return .store
    }
}
