import Foundation
import Testing
@testable import NexusCore

/// NexusAPI.send writes its body (SendRequest.jsonBytes) and reads the answer
/// (SendResponse.read) by hand. The body must mean to the server what the Codable encoding
/// means; the answer must be what JSONDecoder gives, or nil (then JSONDecoder decides).
struct SendJSONByHandTests {
    static let check = HandReaderCheck<SendResponse> { SendResponse.read(json: $0) }

    static let file = Attachment(name: "a \"b\".txt", size: 3, type: "text/plain", sha256: String(repeating: "ab", count: 32))

    static func encoded(_ answer: SendResponse) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(answer), as: UTF8.self)
    }

    static let plain = Message(
        id: 7, conversationId: 2, seq: 41, senderId: 3, localId: "l-1", text: "hi \"there\"\n/é🙂", sentAt: Timestamp(milliseconds: 1_764_000_000_123))

    @Test func readsTheAnswersAsJSONDecoderDoes() {
        var edited = Self.plain
        edited.replyTo = 40
        edited.editedAt = Timestamp(milliseconds: 1_764_000_001_000)
        var rich = Self.plain
        rich.attachments = [Self.file]
        rich.reactions = [Reaction(emoji: "👍", userIds: [3, 4])]
        for message in [Self.plain, edited, rich] {
            for duplicate in [false, true] {
                Self.check.readsByHand(Self.encoded(SendResponse(message: message, duplicate: duplicate)))
            }
        }
        Self.check.readsByHand(#" {"duplicate":false,"future":[1,{"x":null}],"message":{"id":1,"conversationId":2,"seq":3,"senderId":4,"localId":"l","text":"t","sentAt":"2026-11-29T10:00:00.000Z","replyTo":null}} "#)
    }

    @Test func leavesTheRestToJSONDecoder() {
        let message = #"{"id":1,"conversationId":2,"seq":3,"senderId":4,"localId":"l","text":"t","sentAt":"2026-11-29T10:00:00.000Z"}"#
        let cases: [String] = [
            #"{"message":\#(message)}"#,                                  // no duplicate
            #"{"duplicate":false}"#,                                      // no message
            #"{"message":null,"duplicate":false}"#,
            #"{"message":\#(message),"duplicate":"false"}"#,              // a string for a bool
            #"{"message":\#(message),"duplicate":0}"#,
            #"{"message":\#(message),"duplicate":false,"duplicate":true}"#, // a repeated key
            #"{"message":{"id":1},"duplicate":false}"#,                   // a message without its fields
            #"{"message":\#(message),"duplicate":false}x"#,               // trailing bytes
            "", "[]", "null", "{",
        ]
        for text in cases { Self.check.leavesToJSONDecoder(Array(text.utf8)) }
    }

    @Test func mangledAnswersNeverReadOtherwise() {
        Self.check.compareMangled(Array(Self.encoded(SendResponse(message: Self.plain, duplicate: true)).utf8))
    }

    /// The body by hand reads, with JSONDecoder and with the server's own reader, as the
    /// value it was written from.
    @Test func theBodyByHandMeansWhatTheCodableOneMeans() throws {
        let requests = [
            SendRequest(localId: "l", text: ""),
            SendRequest(localId: "l\u{0}\u{1f}\"\\/", text: "a\tb\nc é 中文 🙂 \u{202e}", replyTo: -4),
            SendRequest(localId: "l", text: "t", replyTo: Int64.max, attachments: []),
            SendRequest(localId: "l", text: "t", attachments: [Self.file, Self.file]),
        ]
        for request in requests {
            let bytes = request.jsonBytes()
            #expect(try JSONDecoder().decode(SendRequest.self, from: Data(bytes)) == request)
            #expect(bytes.withUnsafeBytes { SendRequest.read(json: $0) } == request)
        }
    }

    /// A field added to SendResponse must be read by hand too (SendResponse+Reading.swift).
    @Test func everyFieldIsKnownToTheReader() {
        #expect(Mirror(reflecting: SendResponse(message: Self.plain, duplicate: false)).children.map(\.label) == ["message", "duplicate"])
    }
}
