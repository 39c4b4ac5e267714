import NexusCore

enum NewCommand {
    static let spec = CommandSpec(
        name: "new", summary: "Open a direct conversation with someone, or reuse the one you have",
        usage: ["<email>"],
        arguments: 1...1,
        requirements: [.session],
        jsonFields: ["conversation", "created"],
        examples: [
            ("nexusctl new bob@example.com", "open (or find) the conversation with bob"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let email = context.arguments[0]
        if let problem = Limits.problem(withEmail: email) { throw .usage(problem) }
        let response = try context.call { api throws(APIError) in try api.openDirect(with: email) }
        Cache.remember(conversations: [response.conversation], replacingAll: false, context)
        let me = try context.requireSession().user.id
        let title = response.conversation.title(viewer: me)
        if context.output.json {
            context.output.document(NewView(conversation: ConversationView(conversation: response.conversation, title: title), created: response.created))
        } else {
            let verb = response.created ? "Opened" : "Reusing"
            context.output.line("\(verb) conversation \(response.conversation.id) with \(title) <\(email.lowercased())>.")
            context.output.note("Send with: nexusctl send \(response.conversation.id) <text>")
        }
        return .ok
    }

    struct NewView: Encodable {
        var conversation: ConversationView
        var created: Bool
    }
}
