import NexusCore

/// The positional candidates of a command, from what the profile knows without the
/// network: conversations (with their titles), people, recent messages, queued entries.
struct CompletionArguments {
    let profile: Profile

    func candidates(for spec: CommandSpec?, position: Int) -> [Completion.Candidate] {
        guard let spec else { return [] }
        switch spec.name {
        case "new": return people()
        case "retry": return queued { $0.status == .failed }
        case "drop": return queued { $0.status != .sent }
        case "help": return (CommandTable.all.map(\.name) + ["exit-codes"]).map { Completion.Candidate($0) }
        case "completion": return position == 0 ? ["bash", "zsh", "fish"].map { Completion.Candidate($0) } : []
        default: break
        }
        // Otherwise by what the usage names at that place.
        let words = (spec.usage.first ?? "").split(separator: " ").filter { $0.hasPrefix("<") || $0.hasPrefix("[<") }
        guard position < words.count || words.last?.hasSuffix("...") == true else { return [] }
        let word = words[min(position, words.count - 1)]
        if word.contains("<conversation>/<seq>") || word.hasPrefix("<message") {
            return messages(ownOnly: spec.name == "edit" || spec.name == "delete")
        }
        if word.contains("<conversation>") { return conversations() }
        if word.hasPrefix("<email>") { return people() }
        return []
    }

    private var me: Int64? { (try? profile.loadSession())?.user.id }

    /// Each conversation's id, said what it is, then the email of everyone known: an email
    /// names the direct conversation with that person, opened if there is none yet.
    private func conversations() -> [Completion.Candidate] {
        let cache = ConversationCache(profile: profile)
        let people = cache.people()
        let me = self.me
        var out = cache.list().map { c in
            Completion.Candidate(String(c.id), me.map { c.title(viewer: $0, users: people) + (c.kind == .group ? " (group)" : "") } ?? "")
        }
        var seen = Set(out.map(\.value))
        for candidate in self.people(cache: cache) + profile.loadDirects().keys.sorted().map({ Completion.Candidate($0) })
        where seen.insert(candidate.value).inserted {
            out.append(candidate)
        }
        return out
    }

    private func people(cache: ConversationCache? = nil) -> [Completion.Candidate] {
        let me = self.me
        return (cache ?? ConversationCache(profile: profile)).people().values.filter { $0.id != me }
            .sorted { $0.email < $1.email }
            .map { Completion.Candidate($0.email, $0.shownName) }
    }

    /// The newest cached messages as CONVERSATION/SEQ, with the start of their text.
    private func messages(ownOnly: Bool) -> [Completion.Candidate] {
        let me = self.me
        let recent = (try? MessageCache(profile: profile).newest(200, conversationId: nil)) ?? []
        return recent.reversed()
            .filter { $0.membership == nil && $0.deletedAt == nil && (!ownOnly || $0.senderId == me) }
            .prefix(50)
            .map { Completion.Candidate("\($0.reference)", Self.preview($0.text)) }
    }

    private func queued(_ keep: (OutboxEntry) -> Bool) -> [Completion.Candidate] {
        ((try? Outbox(profile: profile).entries()) ?? []).filter(keep).map { Completion.Candidate($0.localId, Self.preview($0.text)) }
    }

    /// One line of at most `limit` characters, with nothing a shell would draw wrongly.
    static func preview(_ text: String, limit: Int = 40) -> String {
        let flat = String(String.UnicodeScalarView(text.unicodeScalars.map { TerminalText.needsEscape($0) || $0 == "\t" ? " " : $0 }))
        return flat.count > limit ? String(flat.prefix(limit - 1)) + "…" : flat
    }
}
