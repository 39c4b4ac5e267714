import Foundation
import HTTPTypes
import NexusWire
import Testing

@testable import NexusServer

struct MessagesControllerTests {
    @Test func sendGivesGaplessSeqsAndIsIdempotentByLocalId() async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            let (first, firstStatus) = try await api.send(alice.token, to: conversation, localId: "l-1", text: "one")
            #expect(firstStatus == .created)
            #expect(!first.duplicate)
            #expect(first.message.seq == 1)
            #expect(first.message.senderId == alice.user.id)
            #expect(first.message.conversationId == conversation)
            #expect(first.message.text == "one")

            // A resend, even with different text, returns the original.
            let (resent, resentStatus) = try await api.send(alice.token, to: conversation, localId: "l-1", text: "one, edited")
            #expect(resentStatus == .ok)
            #expect(resent.duplicate)
            #expect(resent.message == first.message)

            let second = try await api.send(bob.token, to: conversation, localId: "l-1", text: "two").response
            #expect(!second.duplicate, "localIds are per sender")
            let third = try await api.send(alice.token, to: conversation, localId: "l-2", text: "three").response
            #expect([first, second, third].map(\.message.seq) == [1, 2, 3])
            #expect(Set([first, second, third].map(\.message.id)).count == 3)

            let page = try await api.messages(bob.token, in: conversation)
            #expect(page.messages.map(\.seq) == [1, 2, 3])
            #expect(page.messages.map(\.text) == ["one", "two", "three"])
            #expect(!page.hasMore)
        }
    }

    @Test func concurrentSendsGetSeqsOneToFiftyExactly() async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            let seqs = try await withThrowingTaskGroup(of: Int64.self) { group in
                for i in 0..<50 {
                    let token = i.isMultiple(of: 2) ? alice.token : bob.token
                    group.addTask { try await api.send(token, to: conversation, localId: "c-\(i)").response.message.seq }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(seqs.sorted() == Array(1...50))

            let page = try await api.messages(alice.token, in: conversation, query: "limit=500")
            #expect(page.messages.map(\.seq) == Array(1...50))
            let shown = try decode(Conversation.self, try await api.call(.get, "/v1/conversations/\(conversation)", token: alice.token))
            #expect(shown.lastSeq == 50)

            // The feed lists them in seq order too: its cursor never runs ahead of a seq.
            let feed = try await api.sync(bob.token, query: "after=0")
            #expect(feed.events.compactMap(\.message?.seq) == Array(1...50))
        }
    }

    @Test func concurrentResendsStoreOneMessage() async throws {
        try await withServer { api in
            let (alice, _, conversation) = try await api.pair()
            let results = try await withThrowingTaskGroup(of: (response: SendResponse, status: HTTPTypes.HTTPResponse.Status).self) { group in
                for _ in 0..<10 {
                    group.addTask { try await api.send(alice.token, to: conversation, localId: "same") }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(results.map(\.0.message.id)).count == 1)
            #expect(results.filter { !$0.0.duplicate }.count == 1)
            #expect(results.filter { $0.1 == .created }.count == 1)
            #expect(try await api.messages(alice.token, in: conversation).messages.count == 1)
        }
    }

    @Test func textOfExactly64KiBIsAccepted() async throws {
        try await withServer { api in
            let (alice, _, conversation) = try await api.pair()
            let text = String(repeating: "x", count: Limits.maxTextBytes)
            let sent = try await api.send(alice.token, to: conversation, localId: "big", text: text)
            #expect(sent.status == .created)
            #expect(sent.response.message.text.utf8.count == Limits.maxTextBytes)
        }
    }

    struct BadSend: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var body: String
        var status: HTTPTypes.HTTPResponse.Status
        var code: String
    }

    static let badSends: [BadSend] = [
        .init(testDescription: "empty text", body: #"{"localId":"a","text":""}"#, status: .badRequest, code: "empty_message"),
        .init(testDescription: "blank text", body: #"{"localId":"a","text":" \n\t "}"#, status: .badRequest, code: "empty_message"),
        .init(
            testDescription: "70 KiB text", body: #"{"localId":"a","text":"\#(String(repeating: "y", count: 70 * 1024))"}"#,
            status: .contentTooLarge, code: "message_too_large"),
        .init(
            // 22,000 three-byte characters: under 64 Ki characters, over 64 KiB.
            testDescription: "multi-byte text over 64 KiB", body: #"{"localId":"a","text":"\#(String(repeating: "€", count: 22_000))"}"#,
            status: .contentTooLarge, code: "message_too_large"),
        .init(testDescription: "invalid JSON", body: #"{"localId":"a","text":"#, status: .badRequest, code: "invalid_body"),
        .init(testDescription: "missing text", body: #"{"localId":"a"}"#, status: .badRequest, code: "invalid_body"),
        .init(testDescription: "missing localId", body: #"{"text":"hi"}"#, status: .badRequest, code: "invalid_body"),
        .init(testDescription: "text not a string", body: #"{"localId":"a","text":7}"#, status: .badRequest, code: "invalid_body"),
        .init(testDescription: "empty localId", body: #"{"localId":"","text":"hi"}"#, status: .badRequest, code: "invalid_local_id"),
        .init(testDescription: "localId with a space", body: #"{"localId":"a b","text":"hi"}"#, status: .badRequest, code: "invalid_local_id"),
        .init(
            testDescription: "localId over 64 bytes", body: #"{"localId":"\#(String(repeating: "l", count: 65))","text":"hi"}"#,
            status: .badRequest, code: "invalid_local_id"),
    ]

    @Test(arguments: badSends)
    func invalidSendIsRejected(_ bad: BadSend) async throws {
        try await withServer { api in
            let (alice, _, conversation) = try await api.pair()
            let response = try await api.call(.post, "/v1/conversations/\(conversation)/messages", token: alice.token, raw: bad.body)
            try expectError(response, bad.status, code: bad.code)
            #expect(try await api.messages(alice.token, in: conversation).messages.isEmpty)
        }
    }

    /// A body past the upload limit (512 KiB) is refused before it is parsed, still in the
    /// JSON error shape.
    @Test func bodyOverTheUploadLimitIsTooLarge() async throws {
        try await withServer { api in
            let (alice, _, conversation) = try await api.pair()
            let body = #"{"localId":"huge","text":"\#(String(repeating: "z", count: 600 * 1024))"}"#
            let response = try await api.call(.post, "/v1/conversations/\(conversation)/messages", token: alice.token, raw: body)
            try expectError(response, .contentTooLarge, code: "too_large")
        }
    }

    @Test func historyPagesBackwardsWithHasMore() async throws {
        try await withServer { api in
            let (alice, _, conversation) = try await api.pair()
            for i in 1...7 { try await api.send(alice.token, to: conversation, localId: "h-\(i)") }

            let newest = try await api.messages(alice.token, in: conversation, query: "limit=3")
            #expect(newest.messages.map(\.seq) == [5, 6, 7])
            #expect(newest.hasMore)
            let middle = try await api.messages(alice.token, in: conversation, query: "before=5&limit=3")
            #expect(middle.messages.map(\.seq) == [2, 3, 4])
            #expect(middle.hasMore)
            let oldest = try await api.messages(alice.token, in: conversation, query: "before=2&limit=3")
            #expect(oldest.messages.map(\.seq) == [1])
            #expect(!oldest.hasMore)
            let exact = try await api.messages(alice.token, in: conversation, query: "before=4&limit=3")
            #expect(exact.messages.map(\.seq) == [1, 2, 3])
            #expect(!exact.hasMore, "nothing is older than seq 1")
            let none = try await api.messages(alice.token, in: conversation, query: "before=1")
            #expect(none.messages.isEmpty)
            #expect(!none.hasMore)
            let all = try await api.messages(alice.token, in: conversation)
            #expect(all.messages.map(\.seq) == Array(1...7))
            #expect(!all.hasMore)
        }
    }

    @Test func historyPagesOfFiftyByDefault() async throws {
        try await withServer { api in
            let (alice, _, conversation) = try await api.pair()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 1...51 { group.addTask { try await api.send(alice.token, to: conversation, localId: "p-\(i)") } }
                try await group.waitForAll()
            }
            let page = try await api.messages(alice.token, in: conversation)
            #expect(page.messages.map(\.seq) == Array(2...51))
            #expect(page.hasMore)
        }
    }

    @Test(arguments: ["limit=0", "limit=501", "limit=ten", "before=x"])
    func badHistoryQueryIsABadRequest(_ query: String) async throws {
        try await withServer { api in
            let (alice, _, conversation) = try await api.pair()
            let response = try await api.call(.get, "/v1/conversations/\(conversation)/messages?\(query)", token: alice.token)
            try expectError(response, .badRequest, code: "invalid_query")
        }
    }
}
