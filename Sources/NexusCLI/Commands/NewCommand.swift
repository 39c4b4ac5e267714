import NexusCore

enum NewCommand {
    static let name = Value("name", "NAME", help: "the group's name (default: its members' names)")
    static let separate = Flag("separate", help: "make a new group even when one of exactly these people exists")

    static let spec = CommandSpec(
        name: "new", summary: "Open a direct conversation, or create a group of three or more",
        usage: ["<email>", "<email> <email>... [--name NAME] [--separate]"],
        details: """
            With one email, opens the direct conversation with that person, or reuses the one you
            have: there is never a second. With two or more, creates a group of you and them, named
            --name or after its members, or reuses the group you already have with exactly those
            people (and that name): --separate makes another. An unknown email is an error, and
            nothing is created.
            """,
        options: [name, separate],
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
        let name = context.invocation[Self.name]
        let separate = context.invocation[Self.separate]
        if emails.count == 1 && name != nil { throw .usage("--name names a group; a direct conversation is named after the other person") }
        if emails.count == 1 && separate { throw .usage("--separate is for groups: there is only ever one direct conversation with a person") }
        if let name, let problem = Identity.problem(withName: name.trimmingSpaces(), what: "title", checkLength: false) { throw .usage(problem) }
        let response = try context.act { actions throws(APIError) in try actions.open(emails, name: name, separate: separate) }
        let me = try context.me().id
        let c = response.conversation
        let title = c.title(viewer: me)
        if context.output.json {
            context.output.document(NewView(conversation: Titled(base: c, title: title), created: response.created))
        } else if c.kind == .group {
            let others = MembershipEvent.list(c.members.filter { $0.id != me }.map(\.shownName))
            let named = name == nil ? "" : c.name.map { ", \"\($0)\"," } ?? ""
            context.output.line("\(response.created ? "Created" : "Reusing") group \(c.id)\(named) with \(others).")
            context.output.note("Send with: nexusctl send \(c.id) <text>")
            if !response.created { context.output.note("To make another group of the same people: add --separate") }
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
