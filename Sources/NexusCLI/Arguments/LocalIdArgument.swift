import NexusCore

/// A localId on the command line may be cut short, as git takes a short hash: a unique
/// prefix of one in the outbox names it; an ambiguous one is an error naming the candidates.
enum LocalIdArgument {
    static func resolve(_ given: [String], in entries: [OutboxEntry]) throws(CLIError) -> [String] {
        let ids = entries.filter { $0.status != .sent }.map(\.localId)
        return try given.map { text throws(CLIError) in
            let wanted = text.lowercased()
            if ids.contains(wanted) || wanted.isEmpty { return text }
            let matches = ids.filter { $0.hasPrefix(wanted) }
            guard matches.count <= 1 else {
                throw .usage(
                    "the localId prefix '\(text)' is ambiguous: it starts \(matches.count) messages (\(matches.joined(separator: ", ")))",
                    hint: "give more of the localId; `nexusctl queue` lists them.")
            }
            return matches.first ?? text
        }
    }

    /// `resolve` against the profile's outbox.
    static func resolve(_ given: [String], _ context: CommandContext) throws(CLIError) -> [String] {
        let entries: [OutboxEntry]
        do { entries = try Outbox(profile: context.profile).entries() } catch { throw CLIError(error) }
        return try resolve(given, in: entries)
    }
}
