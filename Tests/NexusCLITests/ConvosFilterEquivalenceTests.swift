import NexusCore
import Testing
@testable import NexusCLI

/// `convos` filters in one pass, not at all without --unread or --search, and sorts only a
/// list that is out of order. What it keeps, and in what order, must be what the chained
/// filters and sort gave (`reference` below is that code): lists in order, reversed,
/// shuffled, with ties on the time, repeated ids, and every combination of the options.
// The clock starts when the run queues a test: the limit bounds the whole run (IntegrationTests/TimeLimit.swift).
@Suite(.timeLimit(.minutes(15)))
struct ConvosFilterEquivalenceTests {
    static let people: [Int64: User] = [
        1: User(id: 1, email: "me@x", displayName: "Me"),
        2: User(id: 2, email: "ann@x", displayName: "Ann Smith"),
        3: User(id: 3, email: "bob@x", displayName: "Bob"),
    ]

    static func list(_ seed: Int) -> [ConversationSummary] {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        func next(_ n: Int) -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % UInt64(n))
        }
        return (0..<(20 + next(30))).map { _ in
            let id = Int64(next(25))
            let text = ["hello there", "Smith's news", "", "bob?"][next(4)]
            return ConversationSummary(
                id: id, kind: next(2) == 0 ? .direct : .group, name: next(3) == 0 ? "Team \(id)" : nil, memberIds: [1, Int64(2 + next(2))],
                lastSeq: 1, lastMessage: next(4) == 0 ? nil : Message(id: id, conversationId: id, seq: 1, senderId: 2, localId: "l", text: text, sentAt: Timestamp(milliseconds: 0)),
                createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: Int64(next(6)) * 1000), unreadCount: next(3), lastMessageReadBy: nil)
        }
    }

    @Test(arguments: 1...12)
    func keepsAndOrdersAsTheChainedCode(seed: Int) {
        let shuffled = Self.list(seed)
        let ordered = Self.reference(shuffled, search: nil, unreadOnly: false)
        for conversations in [shuffled, ordered, Array(ordered.reversed())] {
            for search in [nil, "", "smith", "TEAM", "zzz", "bob"] {
                for unreadOnly in [false, true] {
                    let new = ConvosCommand.filter(conversations, me: 1, people: Self.people, search: search, unreadOnly: unreadOnly)
                    let old = Self.reference(conversations, search: search, unreadOnly: unreadOnly)
                    #expect(new == old, "search \(search ?? "nil") unread \(unreadOnly)")
                }
            }
        }
    }

    // MARK: the code before

    static func reference(_ conversations: [ConversationSummary], search: String?, unreadOnly: Bool) -> [ConversationSummary] {
        let query = search?.lowercased()
        let me: Int64 = 1, people = Self.people
        return conversations
            .filter { !unreadOnly || $0.unreadCount > 0 }
            .filter { c in
                guard let query, !query.isEmpty else { return true }
                return c.title(viewer: me, users: people).lowercased().contains(query)
                    || c.memberIds.contains { $0 != me && (people[$0]?.displayName.lowercased().contains(query) ?? false) }
                    || (c.lastMessage?.text.lowercased().contains(query) ?? false)
            }
            .sorted { ($0.updatedAt, $0.id) > ($1.updatedAt, $1.id) }
    }
}
