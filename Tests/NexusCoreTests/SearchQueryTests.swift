import Testing
import NexusCore

/// The query syntax and the matching that offline search does, and that the server's
/// snippets and scores come from.
struct SearchQueryTests {
    @Test func parsesWordsPhrasesExclusionsAndPrefixes() throws {
        let q = try SearchQuery(parsing: #"Café -lunch "error 42" deploy* -"stage two""#)
        #expect(q.terms.map(\.tokens) == [["cafe"], ["lunch"], ["error", "42"], ["deploy"], ["stage", "two"]])
        #expect(q.terms.map(\.words) == [["Café"], ["lunch"], ["error", "42"], ["deploy"], ["stage", "two"]])
        #expect(q.terms.map(\.excluded) == [false, true, false, false, true])
        #expect(q.terms.map(\.prefix) == [false, false, false, true, false])
    }

    @Test func emojiAndCJKAreSubstrings() throws {
        let q = try SearchQuery(parsing: "東京 🎉 ++ party")
        #expect(q.terms.map(\.substring) == ["東京", "🎉", "++", nil])
    }

    @Test(arguments: [
        ("", SearchQueryError.empty), ("   ", .empty), ("-foo", .onlyExclusions), (#""open"#, .unclosedQuote), ("*", .bareStar),
    ])
    func refusesBadQueries(_ text: String, _ error: SearchQueryError) {
        #expect(throws: error) { try SearchQuery(parsing: text) }
    }

    @Test(arguments: [
        ("cafe", "Lunch at the Café?", true), ("CAFÉ", "the cafe", true), ("cafe -lunch", "Lunch at the Café?", false),
        ("deploy*", "deployment failed", true), ("deploy*", "redeploy", false), (#""error 42""#, "an error 42 here", true),
        (#""error 42""#, "error 7 and 42", false), ("東京", "東京タワーに行った", true), ("🎉", "party 🎉!", true),
        ("straße", "STRASSE", true), ("naïve cafe", "naive", false),
    ])
    func matches(_ query: String, _ text: String, _ expected: Bool) throws {
        #expect(SearchMatch(try SearchQuery(parsing: query), text: text).matches == expected)
    }

    @Test func snippetsCarryTheMatchesOffsets() throws {
        let text = String(repeating: "word ", count: 40) + "the Café is open\nlate " + String(repeating: "more ", count: 40)
        let match = SearchMatch(try SearchQuery(parsing: "cafe"), text: text)
        let snippet = SearchSnippet(text: text, highlights: match.highlights)
        #expect(snippet.text.hasPrefix("…") && snippet.text.hasSuffix("…") && !snippet.text.contains("\n"))
        let scalars = Array(snippet.text.unicodeScalars)
        let h = try #require(snippet.highlights.first)
        #expect(String(String.UnicodeScalarView(scalars[h.start..<h.end])) == "Café")
    }
}
