import NexusCore

enum SendCommand {
    static let spec = CommandSpec(
        name: "send", summary: "Send a message; it is queued safely first, so nothing is lost offline",
        usage: ["<conversation> <text>...", "<conversation> -"],
        details: """
            \(Conversations.argumentHelp)
            With '-' the whole of stdin is the message. The words of <text> are joined with spaces.

            The message is written to the profile's outbox, and synced to disk, before anything is sent.
            Prints "<status> <localId>". Exit status: 0 sent; 75 queued (the server could not be reached,
            `nexusctl queue flush` will deliver it); 1 failed; 3 no such conversation; 4 not logged in.
            """,
        arguments: 2...Int.max,
        requirements: [.session],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let target = context.arguments[0]
        var text: String
        if context.arguments.count == 2 && context.arguments[1] == "-" {
            text = String(decoding: context.terminal.readAllInput(), as: UTF8.self)
            while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        } else {
            text = context.arguments[1...].joined(separator: " ")
        }
        if let problem = Limits.problem(withText: text) { throw .usage(problem) }

        let conversationId = try Conversations.localId(for: target, profile: context.profile)
        let entry: OutboxEntry
        do {
            try context.profile.ensureDirectory()
            entry = try Outbox(profile: context.profile).enqueue(
                conversationId: conversationId, to: conversationId == nil ? target.lowercased() : nil, text: text)
        } catch {
            throw CLIError(error)
        }
        let localId = entry.localId

        let outcome = try Delivery.deliver(entry, api: try context.api(), context: context)
        let output = context.output
        switch outcome {
        case .sent(let message):
            if output.json {
                output.document(SendView(localId: localId, status: .sent, conversationId: message.conversationId, message: message))
            } else {
                output.line("sent \(localId)")
            }
            return .ok
        case .queued(let reason):
            if output.json {
                output.document(SendView(localId: localId, status: .queued, conversationId: conversationId, error: reason))
            } else {
                output.line("queued \(localId)")
            }
            output.warn(reason)
            output.note("The message is safe in the outbox; `nexusctl queue flush` will deliver it.")
            return .unavailable
        case .failed(let error):
            if output.json {
                output.document(SendView(localId: localId, status: .failed, conversationId: conversationId, error: error.message))
            } else {
                output.line("failed \(localId)")
            }
            throw error
        }
    }

    struct SendView: Encodable {
        var localId: String
        var status: OutboxStatus
        var conversationId: Int64?
        var message: Message? = nil
        var error: String? = nil
    }
}
