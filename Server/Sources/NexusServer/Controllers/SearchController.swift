import Hummingbird
import NexusWire

/// Full-text search over the messages of the caller's conversations.
struct SearchController {
    let search: any SearchStore
    let services: AppServices

    /// Conversations the caller is not in are left out inside the query: naming one with
    /// `in` answers exactly as a query that matches nothing does, with no error.
    @Sendable func find(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller(.read)
        let me = caller.user
        let params = request.uri.queryParameters
        guard let q = params["q"].map(String.init) else {
            throw APIError.badRequest("Give the search query as q.", code: "invalid_query")
        }
        try IdentityInput.rejectNUL(q, field: "q", code: "invalid_query")
        let query: SearchQuery
        do {
            query = try SearchQuery(parsing: q)
        } catch {
            throw APIError.badRequest(error.description.prefix(1).uppercased() + error.description.dropFirst() + ".", code: "invalid_query")
        }
        var filter = SearchFilter()
        filter.conversations = try params[values: "in"].map { raw in
            guard let id = CheckedNumbers.parse(raw, in: RequestNumbers.id) else {
                throw APIError.badRequest("The query parameter 'in' must be a conversation id.", code: "invalid_query")
            }
            return id
        }
        filter.senders = try params[values: "from"].map { raw in
            let email = String(raw)
            try IdentityInput.rejectNUL(email, field: "from", code: "invalid_query")
            return String(decoding: email.lowercased()._nfcCodeUnits, as: UTF8.self)
        }
        guard filter.conversations.count <= 100, filter.senders.count <= 100 else {
            throw APIError.badRequest("Give at most 100 conversations and 100 senders.", code: "invalid_query")
        }
        // A token limited to some conversations searches those only; naming others finds
        // nothing, as for a non-member (0 is no conversation's id).
        if let allowed = caller.access.conversations {
            let asked = filter.conversations.isEmpty ? Array(allowed) : filter.conversations.filter(allowed.contains)
            filter.conversations = asked.isEmpty ? [0] : asked.sorted()
        }
        filter.after = try Self.time(params["after"], "after")
        filter.before = try Self.time(params["before"], "before")
        switch params["order"].map(String.init) {
        case nil, "newest": filter.rank = false
        case "rank": filter.rank = true
        default: throw APIError.badRequest("order must be newest or rank.", code: "invalid_query")
        }
        let limit = try request.queryInt("limit", in: RequestNumbers.pageSize) ?? Int64(Limits.defaultPageSize)
        filter.limit = Int(limit)
        filter.page = try params["page"].map { raw in
            guard let token = SearchPageToken(String(raw)) else {
                throw APIError.badRequest("page must be a token from an earlier answer's next.", code: "invalid_query")
            }
            return token
        }

        var scope = SearchScope(query: query, viewer: me.id, filter: filter, beforeId: nil, limit: filter.limit + 1)
        let response: SearchResponse
        switch (filter.rank, filter.page) {
        case (false, .skip), (true, .before):
            throw APIError.badRequest("This page token belongs to the other order; start again without page.", code: "invalid_query")
        case (false, let page):
            if case .before(let id) = page { scope.beforeId = id }
            response = SearchResults.newest(try await search.matches(scope), query: query, limit: filter.limit)
        case (true, let page):
            scope.limit = SearchFilter.rankedCandidates
            var skip = 0
            if case .skip(let n) = page { skip = n }
            response = SearchResults.ranked(try await search.matches(scope), query: query, skip: skip, limit: filter.limit)
        }
        return try jsonResponse(response)
    }

    private static func time(_ raw: Substring?, _ name: String) throws -> Timestamp? {
        try raw.map { text in
            guard let time = Timestamp(iso8601: String(text)) else {
                throw APIError.badRequest("\(name) must be an ISO-8601 time such as 2026-11-22T12:00:00Z.", code: "invalid_query")
            }
            return time
        }
    }
}
