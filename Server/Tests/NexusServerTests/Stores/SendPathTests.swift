import Foundation
import NexusWire
import Testing

@testable import NexusServer

/// The single-send fast path: the writer's direct SQLite connection with kept statements, and
/// the answer written by hand. Each scenario runs on it and on SQLiteNIO's connection (the
/// one an in-memory database writes with), which must agree; the hand-written answer is
/// checked against Codable's.
@Suite(.timeLimit(.minutes(5)))
struct SendPathTests {
    /// The hand-written answer reads back as exactly what Codable's encoder wrote.
    @Test func theHandWrittenSendAnswerDecodesAsCodablesDoes() throws {
        let messages = [
            Message(id: 1, conversationId: 2, seq: 3, senderId: 4, localId: "l-1", text: "plain", sentAt: Timestamp(milliseconds: 1_700_000_000_000)),
            Message(
                id: 9_007_199_254_740_993, conversationId: 7, seq: 42, senderId: 9, localId: "a/b\"c\\d",
                text: "héllo \"you\"\n\t\u{1}\u{7F}/ 😀 \u{2028}", sentAt: Timestamp(milliseconds: 1_700_000_000_123), replyTo: 4,
                editedAt: Timestamp(milliseconds: 1_700_000_001_000), deletedAt: nil,
                reactions: [Reaction(emoji: "👍", userIds: [1, 2])],
                attachments: [Attachment(name: "a \"b\".png", size: 12, type: "image/png", sha256: String(repeating: "ab", count: 32))]),
        ]
        for message in messages {
            for duplicate in [false, true] {
                let answer = SendResponse(message: message, duplicate: duplicate)
                let byHand = try JSONDecoder().decode(SendResponse.self, from: Data(answer.jsonBytes()))
                let byCodable = try JSONDecoder().decode(SendResponse.self, from: JSONEncoder().encode(answer))
                #expect(byHand.message == byCodable.message && byHand.message == message)
                #expect(byHand.duplicate == duplicate)
            }
        }
    }

    /// Single sends, a resend, and a batch larger than one INSERT (its own transaction on
    /// the direct connection) with resends inside: seqs 1…n without gaps, each resend
    /// answered with its original, on both paths.
    @Test(arguments: [false, true]) func sendsAndResendsKeepSeqsWhole(inMemory: Bool) async throws {
        var (config, cleanUp) = try testConfig(ServerLimits())
        defer { cleanUp() }
        if inMemory { config.databasePath = ":memory:" }
        try await buildApplication(config).test(.router) { client in
            let api = API(client: client)
            let (alice, _, conversation) = try await api.pair()
            for i in 1...3 {
                let (sent, status) = try await api.send(alice.token, to: conversation, localId: "single-\(i)", text: "single \(i)")
                #expect(status == .created && sent.message.seq == Int64(i) && !sent.duplicate)
            }
            let (again, againStatus) = try await api.send(alice.token, to: conversation, localId: "single-2", text: "other text")
            #expect(againStatus == .ok && again.duplicate && again.message.seq == 2 && again.message.text == "single 2")

            // 990 new messages with two resends among them: more than SQLiteMessageStore.rowsPerStatement.
            var items = (1...990).map { BatchItem(conversationId: conversation, localId: "batch-\($0)", text: "batch \($0)") }
            items.insert(BatchItem(conversationId: conversation, localId: "single-1", text: "x"), at: 600)
            items.append(BatchItem(conversationId: conversation, localId: "batch-7", text: "y"))
            let response = try await api.call(.post, "/v1/messages/batch", token: alice.token, json: BatchSendRequest(messages: items))
            #expect(response.status == .ok)
            let results = try decode(BatchSendResponse.self, response).results
            #expect(results.count == 992)
            #expect(results[600].status == .duplicate && results[600].message?.seq == 1)
            #expect(results[991].status == .duplicate && results[991].message?.seq == 10)
            let created = results.filter { $0.status == .created }.compactMap { $0.message?.seq }
            #expect(created == Array(4...993))

            let page = try await api.messages(alice.token, in: conversation, query: "limit=5")
            #expect(page.messages.map(\.seq) == Array(989...993))
            #expect(page.messages.last?.text == "batch 990")
        }
    }
}
