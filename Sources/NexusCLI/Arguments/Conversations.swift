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
        let actions = try context.conversationActions()
        do {
            return try actions.directId(with: argument)
        } catch {
            throw context.failure(error)
        }
    }
}
