import Foundation
@testable import NexusCore
import Testing

/// `search --offline` reads only the `text` value of each cached line before it decodes one
/// (LinePrefilter): it must find exactly what decoding every line and matching would.
struct LocalSearchTests {
    static let messages: [Message] = {
        func m(_ id: Int64, _ text: String, localId: String? = nil, reactions: [Reaction]? = nil,
               attachments: [NexusCore.Attachment]? = nil, membership: MembershipEvent? = nil) -> Message {
            Message(id: id, conversationId: 1, seq: id, senderId: 1, localId: localId ?? "l\(id)", text: text,
                    sentAt: Timestamp(milliseconds: 1_700_000_000_000 + id), reactions: reactions,
                    attachments: attachments, membership: membership)
        }
        return [
            m(1, "cafe at noon"),
            m(2, #"He said "cafe" loudly"#),
            m(3, "nothing here", localId: #"x"text":"cafe at noon"#),
            m(4, "lunch cafe", localId: "text"),
            m(5, "CAFE upper"),
            m(6, "café accent"),
            m(7, "x", attachments: [NexusCore.Attachment(name: "cafe.png", size: 1, type: "image/png", sha256: String(repeating: "0", count: 64))]),
            m(8, "Alice renamed the group to cafe club", membership: MembershipEvent(kind: .renamed, name: "cafe club")),
            m(9, "☕", reactions: [Reaction(emoji: "cafe", userIds: [1])]),
            m(10, "cafeteria"),
            m(11, "lunch\ncafe\tat\\noon"),
            m(12, ""),
            m(13, "at noon, cafe"),
        ]
    }()

    /// Each query on one thread, and with the cache cut in two halves read at once.
    @Test(arguments: ["cafe", "cafe*", #""at noon""#, "lunch cafe", "cafe -lunch", "said", "noon", "text", "png", "club"], [Int.max, 0])
    func findsWhatDecodingEveryLineFinds(_ text: String, halvesFrom: Int) throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-local-search-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        try MessageCache(profile: profile).insert(Self.messages)
        let query = try SearchQuery(parsing: text)
        var filter = SearchFilter()
        filter.limit = 100
        let found = try LocalSearch(profile: profile).search(query, filter: filter, senderIds: nil, halvesFrom: halvesFrom).hits.map(\.message.id)
        let expected = Self.messages.filter { SearchMatch(query, text: $0.text).matches }.map(\.id).sorted(by: >)
        #expect(found == expected, "query \(text)")
    }

    /// Cut anywhere, the two halves of a file hold each of its lines once: a line belongs to
    /// the half it starts in, and a torn last line to neither.
    @Test func halvesOfAFileHoldEachLineOnce() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-lines-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lines = ["a", "", "bb", "ccc", "", "", "dddd", "e"]
        let bytes = Array((lines.joined(separator: "\n") + "\ntorn").utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        func read(_ part: FilePart) throws -> [String] {
            var out: [String] = []
            try LocalSearch.lines(of: part.path, from: part.from, to: part.to) { out.append(String(decoding: $0, as: UTF8.self)) }
            return out
        }
        for cut in 0...bytes.count {
            let whole = try read(FilePart(path: path, from: 0, to: cut)) + read(FilePart(path: path, from: cut))
            #expect(whole == lines, "cut at \(cut)")
        }
        // Three files of 10, 4 and 6 bytes: the middle (10) falls between the first two.
        let cut = LocalSearch.halves(of: [("a", 10), ("b", 4), ("c", 6)], from: 20)
        #expect(cut == [[FilePart(path: "a")], [FilePart(path: "b"), FilePart(path: "c")]])
        let crossing = LocalSearch.halves(of: [("a", 4), ("b", 10), ("c", 6)], from: 20)
        #expect(crossing == [[FilePart(path: "a"), FilePart(path: "b", to: 6)], [FilePart(path: "b", from: 6), FilePart(path: "c")]])
        #expect(LocalSearch.halves(of: [("a", 4), ("b", 10)], from: 15) == [[FilePart(path: "a"), FilePart(path: "b")]])
    }
}
