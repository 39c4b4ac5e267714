import NexusCore

enum SearchCommand {
    static let conversations = Values("in", "CONVERSATION", help: "only this conversation (an id or the other person's email); repeat for more")
    static let from = Values("from", "EMAIL", help: "only messages from this sender; repeat for more")
    static let after = Value("after", "TIME", help: "only messages sent at or after this ISO-8601 time or date")
    static let before = Value("before", "TIME", help: "only messages sent before this ISO-8601 time or date")
    static let limit = Value("limit", "N", help: "hits a page, 1 to 500 (default 50)")
    static let rank = Flag("rank", help: "best matches first instead of newest first")
    static let page = Value("page", "TOKEN", help: "the page a previous search named on its last line")
    static let offline = Flag("offline", help: "search the local cache without asking the server")

    static let spec = CommandSpec(
        name: "search", summary: "Find messages in all your conversations",
        usage: ["<query>... [--in CONVERSATION]... [--from EMAIL]... [--after TIME] [--before TIME] [--limit N] [--rank] [--page TOKEN] [--offline]"],
        details: """
            The query's words all must match, in any case and with or without accents ("cafe" finds
            "Café"). "Quoted phrases" match words next to each other (quote them for the shell too:
            '"error 42"'); -word or -"a phrase" leaves out messages that have it (a query that starts with
            one takes -- before it: `nexusctl search -- -staging deploy`); deploy* matches words
            that start with "deploy". Terms with emoji or CJK text, or without letters, match exactly
            as typed, anywhere in a message.

            Each hit is a line: the message (CONVERSATION/SEQ: `nexusctl history CONVERSATION --before
            SEQ+1` shows it in place), the conversation, the sender, when, and a snippet with the matches
            marked (colour on a terminal, [brackets] otherwise). Newest first, or with --rank the best
            matches first (of the newest 1,000). The last line gives the command for the next page.

            Only your conversations are searched. When the server can't be reached, or with --offline,
            the local cache is scanned instead, with the same query and output, and a warning says so.
            With --json: one hit a line (NDJSON), with "score", "snippet" and "highlights" ([start, end)
            offsets in the snippet, in Unicode code points); the next page's command goes to stderr.
            """,
        options: [conversations, from, after, before, limit, rank, page, offline],
        arguments: 1...64,
        requirements: [.session],
        jsonFields: ["ref", "id", "conversationId", "seq", "senderId", "sender", "senderName", "sentAt", "text", "score", "snippet", "highlights", "offline"],
        examples: [
            ("nexusctl search deploy failed --after 2026-11-16", "both words, in the last week's messages"),
            ("nexusctl search '\"connection refused\"' -staging --from ops@example.com", "a phrase, without staging, from one sender"),
            ("nexusctl search 'cafe*' --json | jq -r .ref", "the message references of every hit"),
        ],
        takesMinusWords: true,
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let me = try context.requireSession().user
        let text = context.arguments.joined(separator: " ")
        let query: SearchQuery
        do { query = try SearchQuery(parsing: text) } catch { throw .usage("\(error)", hint: "for example: nexusctl search deploy* '\"error 42\"' -staging") }
        let invocation = context.invocation
        var filter = SearchFilter()
        filter.limit = try context.intOption(limit, default: Limits.defaultPageSize, range: 1...Limits.maxPageSize)
        filter.rank = invocation[rank]
        filter.after = try time(after, context)
        filter.before = try time(before, context)
        filter.senders = try invocation[from].map { email throws(CLIError) in
            if let problem = Limits.problem(withEmail: email) { throw .usage("--from: \(problem)") }
            return email.lowercased()
        }
        if let page = invocation[Self.page] {
            guard let token = SearchPageToken(page), filter.rank == (page.hasPrefix("skip:")) else {
                throw .usage("--page takes the token a previous search printed, with the same --rank; got '\(page)'")
            }
            filter.page = token
        }
        let offlineAsked = invocation[offline]
        filter.conversations = try conversationIds(invocation[conversations], context)
        let printer = SearchPrinter(context: context, me: me, query: query)
        var response: SearchResponse
        var offline: String? = nil
        if offlineAsked {
            response = try local(query, filter, context)
            offline = "--offline"
        } else {
            let api = try context.api()
            do throws(APIError) {
                response = try api.search(query.text, filter: filter)
            } catch {
                guard error.isNetwork else {
                    if case .server(400, "invalid_query", let message, _) = error { throw .usage(message) }
                    throw context.failure(error)
                }
                response = try local(query, filter, context)
                offline = "\(error)"
            }
        }
        if let offline { context.output.warn(offline == "--offline" ? "offline (--offline); searching the local cache" : "offline (\(offline)); searching the local cache") }
        printer.print(response, offline: offline != nil, next: response.next.map { nextCommand(context, page: $0) })
        return .ok
    }

    /// `--in` arguments as ids. An email names the direct conversation with that person, as
    /// elsewhere, but is only looked up, never opened: searching must not start conversations.
    private static func conversationIds(_ arguments: [String], _ context: CommandContext) throws(CLIError) -> [Int64] {
        var list: ConversationsResponse?
        return try arguments.map { argument throws(CLIError) in
            if let id = try Conversations.localId(for: argument, profile: context.profile) { return id }
            if list == nil { list = try context.read { reading throws(ReadError) in try reading.conversations() }.value }
            let me = context.session?.user.id
            let people = Dictionary((list?.users ?? []).map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            let direct = list?.conversations.first { c in
                c.kind == .direct && c.memberIds.contains { $0 != me && people[$0]?.email.lowercased() == argument.lowercased() }
            }
            guard let direct else { throw CLIError(.notFound, "--in \(argument): you have no conversation with them") }
            return direct.id
        }
    }

    private static func local(_ query: SearchQuery, _ filter: SearchFilter, _ context: CommandContext) throws(CLIError) -> SearchResponse {
        var senderIds: Set<Int64>? = nil
        if !filter.senders.isEmpty {
            let people = ConversationCache(profile: context.profile).people()
            senderIds = Set(people.values.filter { filter.senders.contains($0.email.lowercased()) }.map(\.id))
        }
        do {
            return try LocalSearch(profile: context.profile).search(query, filter: filter, senderIds: senderIds)
        } catch {
            throw CLIError(error)
        }
    }

    private static func time(_ option: Value, _ context: CommandContext) throws(CLIError) -> Timestamp? {
        guard let text = context.invocation[option] else { return nil }
        let name = option.spec.name
        guard let time = Timestamp(iso8601: text) else {
            throw .usage("--\(name) takes an ISO-8601 time or date; got '\(text)'", hint: "for example --\(name) 2026-11-21 or --\(name) 2026-11-21T18:00:00Z")
        }
        return time
    }

    /// This search again with `--page`: the query words and the options that shaped it.
    static func nextCommand(_ context: CommandContext, page: String) -> String {
        var words = ["nexusctl", "search"] + context.arguments.map(shellQuoted)
        func add(_ option: any OptionKey, _ value: String) { words += ["--" + option.spec.name, shellQuoted(value)] }
        for option in [conversations, from] {
            for value in context.invocation[option] { add(option, value) }
        }
        for option in [after, before, limit] {
            if let value = context.invocation[option] { add(option, value) }
        }
        for option in [rank, offline] where context.invocation[option] { words.append("--" + option.spec.name) }
        return (words + ["--page", page]).joined(separator: " ")
    }

    static func shellQuoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { s in
            s.properties.isAlphabetic || s.properties.numericType != nil || "@%+=:,./_-".unicodeScalars.contains(s)
        }
        return plain ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
    }
}
