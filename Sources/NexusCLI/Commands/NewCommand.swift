import NexusCore

enum NewCommand {
    static let spec = CommandSpec(
        name: "new", summary: "Open a direct conversation, or create a group of three or more",
        usage: ["<email>", "<email> <email>... [--name NAME]"],
        details: """
            With one email, opens the direct conversation with that person, or reuses the one you
            have: there is never a second. With two or more, creates a group of you and them, named
            --name or after its members. An unknown email is an error, and nothing is created.
            """,
        options: [OptionSpec("name", .value(placeholder: "NAME"), help: "the group's name (default: its members' names)")],
        arguments: 1...255,
        requirements: [.session], deliversQueueAfterwards: true,
        jsonFields: ["conversation", "created"],
        examples: [
            ("nexusctl new bob@example.com", "open (or find) the conversation with bob"),
            ("nexusctl new bob@example.com carol@example.com --name Launch", "a group of three"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let emails = context.arguments
        for email in emails {
            if let problem = Limits.problem(withEmail: email) { throw .usage(problem) }
        }
        let name = context.invocation.value("name")
        if emails.count == 1 && name != nil { throw .usage("--name names a group; a direct conversation is named after the other person") }
        if let name, let problem = Identity.problem(withName: name.trimmingSpaces(), what: "title", checkLength: false) { throw .usage(problem) }
        let response = try context.act { actions throws(APIError) in try actions.open(emails, name: name) }
        let me = try context.me().id
        let c = response.conversation
        let title = c.title(viewer: me)
        if context.output.json {
            context.output.document(NewView(conversation: Titled(base: c, title: title), created: response.created))
        } else if c.kind == .group {
            context.output.line("Created group \(c.id), \(title), with \(c.members.filter { $0.id != me }.map(\.shownName).joined(separator: ", ")).")
            context.output.note("Send with: nexusctl send \(c.id) <text>")
        } else {
            let verb = response.created ? "Opened" : "Reusing"
            context.output.line("\(verb) conversation \(c.id) with \(title) <\(emails[0].lowercased())>.")
            context.output.note("Send with: nexusctl send \(c.id) <text>")
        }
        return .ok
    }

    struct NewView: Encodable {
        var conversation: Titled<Conversation>
        var created: Bool
    }
}
