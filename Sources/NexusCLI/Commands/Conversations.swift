import NexusCore

/// Turns a `<conversation>` argument into a conversation id. It may be the id itself or
/// the other person's email, which names the direct conversation with them.
enum Conversations {
    static let argumentHelp = "<conversation> is a conversation id (see `nexusctl convos`) or the other person's email."

    /// The id, from the argument alone or the profile's map of direct conversations; nil
    /// when the server must be asked.
    static func localId(for argument: String, profile: Profile) throws(CLIError) -> Int64? {
        if let id = Int64(argument), id > 0 { return id }
        guard argument.contains("@") else {
            throw .usage("'\(argument)' is not a conversation", hint: argumentHelp)
        }
        if let problem = Limits.problem(withEmail: argument) { throw .usage(problem) }
        return profile.loadDirects()[argument.lowercased()]
    }

    static func resolve(_ argument: String, _ context: CommandContext) throws(CLIError) -> Int64 {
        if let id = try localId(for: argument, profile: context.profile) { return id }
        let response = try context.call { api throws(APIError) in try api.openDirect(with: argument) }
        remember(response.conversation, context)
        return response.conversation.id
    }

    /// Notes direct conversations by the other member's email, for later lookups without the network.
    static func remember(_ conversation: Conversation, _ context: CommandContext) {
        guard let me = context.session?.user.id else { return }
        Reading.rememberDirect(conversation, profile: context.profile, me: me)
    }
}

/// A conversation (or list entry) as nexusctl prints it in JSON: the wire fields plus its title.
struct Titled<Base: Encodable>: Encodable {
    var base: Base
    var title: String

    private enum Keys: String, CodingKey { case title }

    func encode(to encoder: any Encoder) throws {
        try base.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(title, forKey: .title)
    }
}
