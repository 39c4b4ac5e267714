import NexusWire

/// One search as the stores run it: the query, whose conversations, and the filters.
struct SearchScope: Sendable {
    var query: SearchQuery
    var viewer: Int64
    var filter: SearchFilter
    /// Only messages with an id below this (the page before).
    var beforeId: Int64?
    var limit: Int
}

/// Full-text search over messages: SQLite's FTS5 index, PostgreSQL's tsvector column.
/// Both look only at conversations the viewer is a member of, and there only at
/// messages sent since they joined; a conversation they are not in, named with `in`,
/// simply adds nothing, so the answer is the one of a query that matches nothing.
protocol SearchStore: Sendable {
    /// Matching messages, newest (highest id) first, at most `scope.limit`.
    func matches(_ scope: SearchScope) async throws -> [Message]
    /// Indexes up to `limit` messages that wait for the index; returns how many it took and
    /// how many still wait. Where the index follows the commit itself (PostgreSQL), (0, 0).
    func indexPending(limit: Int) async throws -> (indexed: Int, left: Int)
}

/// The conditions both backends add beside the index: the caller's membership, the
/// filters and the terms matched as substrings. Each backend writes its placeholders.
struct SearchConditions {
    var sql: [String] = []

    /// `bind` writes the next placeholder for a value; `substring` a test that the text
    /// holds (or, `false`, lacks) a term exactly as typed.
    static func make(
        _ scope: SearchScope, bind: (SearchBind) -> String, substring: (String, Bool) -> String
    ) -> SearchConditions {
        var c = SearchConditions()
        c.sql.append("m.sent_at >= me.joined_at")
        // A tombstone has no text, but a query of excluded words alone would still take it.
        c.sql.append("m.deleted_at IS NULL")
        let f = scope.filter
        if !f.conversations.isEmpty {
            c.sql.append("m.conversation_id IN (" + f.conversations.map { bind(.int($0)) }.joined(separator: ", ") + ")")
        }
        if !f.senders.isEmpty {
            c.sql.append("m.sender_id IN (SELECT id FROM users WHERE email IN (" + f.senders.map { bind(.text($0)) }.joined(separator: ", ") + "))")
        }
        if let after = f.after { c.sql.append("m.sent_at >= " + bind(.int(after.milliseconds))) }
        if let before = f.before { c.sql.append("m.sent_at < " + bind(.int(before.milliseconds))) }
        if let id = scope.beforeId { c.sql.append("m.id < " + bind(.int(id))) }
        for term in scope.query.terms {
            if let raw = term.substring { c.sql.append(substring(raw, !term.excluded)) }
        }
        return c
    }
}

enum SearchBind {
    case int(Int64)
    case text(String)
}
