import NexusCore

/// Prints search hits: a line each with the message reference, conversation, sender, time
/// and snippet, or NDJSON. Names come from the cached conversations, refreshed once from
/// the server when a hit is in one the cache does not know.
struct SearchPrinter {
    let context: CommandContext
    let me: User
    let query: SearchQuery

    struct HitView: Encodable {
        var ref: String
        var message: Message
        var sender: String?
        var senderName: String?
        var score: Double
        var snippet: String
        var highlights: [[Int]]
        var offline: Bool?

        private enum Keys: String, CodingKey { case ref, sender, senderName, score, snippet, highlights, offline }

        func encode(to encoder: any Encoder) throws {
            try message.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(ref, forKey: .ref)
            try c.encodeIfPresent(sender, forKey: .sender)
            try c.encodeIfPresent(senderName, forKey: .senderName)
            try c.encode(score, forKey: .score)
            try c.encode(snippet, forKey: .snippet)
            try c.encode(highlights, forKey: .highlights)
            try c.encodeIfPresent(offline, forKey: .offline)
        }
    }

    func print(_ response: SearchResponse, offline: Bool, next: String?) {
        let output = context.output
        var (conversations, people) = names()
        let unknown = response.hits.contains { conversations[$0.message.conversationId] == nil || people[$0.message.senderId] == nil }
        if unknown && !offline, let fetched = try? context.reading().conversations() {
            people.merge(fetched.value.users.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            for c in fetched.value.conversations { conversations[c.id] = c }
        }
        people[me.id] = me
        var rows: [[TerminalText]] = []
        for hit in response.hits {
            let m = hit.message
            let snippet = SearchSnippet(text: m.text, highlights: SearchMatch(query, text: m.text).highlights)
            // The reference `history` and the other message commands take: CONVERSATION/SEQ.
            let ref = "\(m.conversationId)/\(m.seq)"
            if output.json {
                output.record(
                    HitView(
                        ref: ref, message: m, sender: people[m.senderId]?.email, senderName: people[m.senderId]?.displayName, score: hit.score, snippet: snippet.text,
                        highlights: snippet.highlights.map { [$0.start, $0.end] }, offline: offline ? true : nil))
                continue
            }
            let title = conversations[m.conversationId]?.title(viewer: me.id, users: people) ?? "conversation \(m.conversationId)"
            let sender = m.senderId == me.id ? "You" : people[m.senderId]?.displayName ?? "user \(m.senderId)"
            rows.append([
                output.paint(TerminalText(ref), .cyan), TerminalText(title), output.paint(TerminalText(sender), .bold),
                output.paint(TerminalText(SmartTime.short(m.sentAt)), .dim), marked(snippet),
            ])
        }
        if !rows.isEmpty { output.table(rows) }
        if let next {
            if output.json { output.note("More: \(TerminalText(next))") } else { output.line(output.paint("More: \(TerminalText(next))", .dim)) }
        } else if !output.json {
            output.line(output.paint(response.hits.isEmpty ? "No messages match." : "No more results", .dim))
        }
    }

    /// The snippet with its matches in colour on a terminal, between [ and ] otherwise;
    /// each piece escaped as all text that others wrote is.
    func marked(_ snippet: SearchSnippet) -> TerminalText {
        let scalars = Array(snippet.text.unicodeScalars)
        func piece(_ from: Int, _ to: Int) -> TerminalText { TerminalText(String(String.UnicodeScalarView(scalars[from..<to]))) }
        var out: TerminalText = ""
        var at = 0
        for h in snippet.highlights {
            out += piece(at, h.start)
            out += context.output.color ? context.output.paint(piece(h.start, h.end), .yellow) : "[" + piece(h.start, h.end) + "]"
            at = h.end
        }
        return out + piece(at, scalars.count)
    }

    private func names() -> ([Int64: ConversationSummary], [Int64: User]) {
        let cache = ConversationCache(profile: context.profile)
        return (Dictionary(cache.list().map { ($0.id, $0) }, uniquingKeysWith: { $1 }), cache.people())
    }
}
