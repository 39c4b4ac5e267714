import Foundation
import Testing
@testable import NexusCore

/// The hand reader of the conversation list must give what JSONDecoder gives, or nil (then
/// the client asks JSONDecoder): never a different value, never a value where JSONDecoder fails.
struct ConversationsReadingTests {
    static let check = HandReaderCheck<ConversationsResponse> { ConversationsResponse.read(json: $0) }

    static let t = "\"2026-11-22T12:03:04.005Z\""
    static func summary(_ extra: String = "", message: String = "null") -> String {
        #"{"id":3,"kind":"group","memberIds":[1,2],"lastSeq":12,"lastMessage":\#(message),"createdAt":\#(t),"updatedAt":\#(t),"unreadCount":4\#(extra)}"#
    }
    static func list(_ conversations: String, users: String = #"[{"id":1,"email":"a@b.c","displayName":"A"}]"#) -> String {
        #"{"conversations":[\#(conversations)],"users":\#(users)}"#
    }
    static let message = #"{"id":7,"conversationId":3,"seq":12,"senderId":1,"localId":"l1","text":"hi","sentAt":\#(t)}"#

    @Test func readsEveryFieldAsJSONDecoderDoes() {
        Self.check.readsByHand(Self.list(Self.summary(#","name":"Team","lastMessageReadBy":2,"lastMessageReaders":3"#, message: Self.message)))
        Self.check.readsByHand(Self.list(Self.summary(#","name":null,"lastMessageReadBy":null,"lastMessageReaders":null"#)))
        Self.check.readsByHand(Self.list(Self.summary(message: #"{"id":7,"conversationId":3,"seq":12,"senderId":1,"localId":"l","text":"","sentAt":\#(Self.t),"replyTo":4,"editedAt":\#(Self.t),"deletedAt":\#(Self.t)}"#)))
        Self.check.readsByHand(Self.list(Self.summary(message: #"{"id":7,"conversationId":3,"seq":12,"senderId":1,"localId":"l","text":"","sentAt":\#(Self.t),"replyTo":null,"editedAt":null,"deletedAt":null,"reactions":null,"attachments":null,"membership":null}"#)))
        // Presence and bots on users; absent, null and set.
        Self.check.readsByHand(Self.list("", users: #"[{"id":1,"email":"a@b.c","displayName":"A","online":true,"lastSeenAt":\#(Self.t),"bot":false},{"id":2,"email":"d","displayName":"D","online":null,"lastSeenAt":null,"bot":null},{"id":-9223372036854775808,"email":"","displayName":""}]"#))
        Self.check.readsByHand(" \n\t{ \"users\" : [ ] ,\r\n \"conversations\" : [ ] } \n")
        Self.check.readsByHand(Self.list(Self.summary(), users: "[]"))
    }

    /// The account's mutes beside the list, with an end and without one.
    @Test func readsTheMutes() {
        Self.check.readsByHand(#"{"conversations":[\#(Self.summary())],"users":[],"mutes":[{"conversationId":3,"until":\#(Self.t),"exceptMentions":true},{"conversationId":4,"exceptMentions":false}]}"#)
        Self.check.readsByHand(#"{"conversations":[],"users":[],"mutes":[]}"#)
    }

    @Test func ignoresUnknownFieldsOfAnyShape() {
        let unknown = #","future":{"a":[1,-2,{"b":null}],"c":"\u00e9\n","d":true,"e":false},"later":[],"n":0"#
        Self.check.readsByHand(#"{"conversations":[\#(Self.summary(unknown))],"users":[],"version":"2"}"#)
        Self.check.readsByHand(Self.list(Self.summary(message: #"{"id":7,"conversationId":3,"seq":12,"senderId":1,"localId":"l","text":"x","sentAt":\#(Self.t),"pinned":{"by":[1]}}"#),
                                   users: #"[{"id":1,"email":"a","displayName":"A","status":"away","devices":[{"id":1}]}]"#))
    }

    @Test func readsEscapesAndUnicode() {
        for text in [#"a\"b\\c\/d"#, #"\b\f\n\r\t"#, #"\u0000\u001f\u00e9\u20ac"#, #"\ud83d\ude42 and \uD83D\uDE42"#, "é🙂中文 ‮", #"\u0041\u00"# + "41"] {
            Self.check.readsByHand(Self.list(Self.summary(#","name":"\#(text)""#), users: #"[{"id":1,"email":"\#(text)","displayName":"\#(text)"}]"#))
        }
    }

    @Test func messagesWithReactionsFilesOrMembershipMatchToo() {
        let rich = [#""reactions":[{"emoji":"👍","userIds":[1,2]}]"#,
                    #""attachments":[{"name":"a.txt","size":3,"type":"text/plain","sha256":"\#(String(repeating: "ab", count: 32))"}]"#,
                    #""membership":{"kind":"renamed","name":"New"}"#]
        for field in rich {
            Self.check.readsByHand(Self.list(Self.summary(message: #"{"id":7,"conversationId":3,"seq":12,"senderId":1,"localId":"l","text":"t","sentAt":\#(Self.t),\#(field)}"#)))
        }
    }

    /// What it does not read exactly goes to JSONDecoder, which decides (value or error).
    @Test func leavesTheRestToJSONDecoder() {
        let cases: [String] = [
            Self.list(Self.summary(#","lastMessageReadBy":1.0"#)),                // a fraction
            Self.list(Self.summary(#","lastMessageReadBy":1e2"#)),                // an exponent
            Self.list(Self.summary(#","lastMessageReadBy":01"#)),                 // a leading zero
            Self.list(Self.summary(#","lastMessageReadBy":99999999999999999999"#)), // too large
            Self.list(Self.summary(#","lastMessageReadBy":"2""#)),                // a string for a number
            Self.list(Self.summary(#","name":"\ud83d""#)),                        // a lone surrogate
            Self.list(Self.summary(#","name":"\ude42\ud83d""#)),                  // surrogates the wrong way round
            Self.list(Self.summary(#","name":"\x""#)),                            // an unknown escape
            Self.list(Self.summary(#","name":"tab\#there""#)),                    // a raw control character
            Self.list(Self.summary(#","id":4"#)),                                 // a repeated key
            Self.list(Self.summary(#","\u006eame":"x""#)),                       // an escaped key
            Self.list(#"{"id":3,"kind":"channel","memberIds":[],"lastSeq":1,"createdAt":\#(Self.t),"updatedAt":\#(Self.t),"unreadCount":0}"#),
            Self.list(#"{"id":3,"kind":"group","memberIds":[],"lastSeq":1,"createdAt":\#(Self.t),"updatedAt":\#(Self.t)}"#), // no unreadCount
            Self.list(Self.summary(#","lastMessageReadBy":1"#), users: #"[{"id":1,"email":"a","displayName":"A","online":1}]"#),
            Self.list(Self.summary(), users: #"[{"id":1,"email":"a","displayName":"A","lastSeenAt":"yesterday"}]"#),
            Self.list(Self.summary(), users: #"[{"id":1,"email":"a"}]"#),       // no displayName
            Self.list(Self.summary()) + "x",                                      // trailing bytes
            Self.list(Self.summary() + ","),                                      // a trailing comma
            #"{"conversations":[]}"#,                                             // no users
            #"{"conversations":[],"users":[],"users":[]}"#,
            Self.list(Self.summary(#","future":nul"#)),
            Self.list(Self.summary(#","future":truex"#)),
            "", "[]", "null",
        ]
        for text in cases { Self.check.leavesToJSONDecoder(Array(text.utf8)) }
        // Bytes that are not UTF-8, in a field read and in one skipped.
        for bad: [UInt8] in [[0xC3], [0xFF, 0xFE], [0xED, 0xA0, 0x80]] {
            let template = Array(Self.list(Self.summary(#","name":"X""#)).utf8)
            let at = template.firstIndex(of: UInt8(ascii: "X"))!
            Self.check.leavesToJSONDecoder(Array(template[..<at]) + bad + Array(template[(at + 1)...]))
            Self.check.leavesToJSONDecoder(Array(#"{"conversations":[],"users":[],"x":""#.utf8) + bad + Array(#""}"#.utf8))
        }
    }

    /// Random lists, written by Codable's encoder and by the server's hand writer: the same value back.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func randomListsRoundTrip(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let list = ConversationsResponse.random(&rng)
        let encoder = JSONEncoder()
        for bytes in [list.jsonBytes(), Array(try encoder.encode(list))] {
            let fast = try #require(ConversationsResponse.read(json: bytes))
            #expect(fast == list)
            #expect(fast == (try JSONDecoder().decode(ConversationsResponse.self, from: Data(bytes))))
        }
    }

    /// A field added to these types must be read by hand too (ConversationsResponse+Reading.swift),
    /// or the list would lose it in silence.
    @Test func everyFieldIsKnownToTheReader() {
        let m = Message(id: 1, conversationId: 1, seq: 1, senderId: 1, localId: "", text: "", sentAt: Timestamp(milliseconds: 0))
        #expect(Mirror(reflecting: m).children.map(\.label) == ["id", "conversationId", "seq", "senderId", "localId", "text", "sentAt", "replyTo", "editedAt",
                                                                "deletedAt", "reactions", "attachments", "membership"])
        let s = ConversationSummary(id: 1, kind: .group, name: nil, memberIds: [], lastSeq: 0, lastMessage: nil, createdAt: m.sentAt, updatedAt: m.sentAt,
                                    unreadCount: 0, lastMessageReadBy: nil)
        #expect(Mirror(reflecting: s).children.map(\.label) == ["id", "kind", "name", "memberIds", "lastSeq", "lastMessage", "createdAt", "updatedAt",
                                                                "unreadCount", "lastMessageReadBy", "lastMessageReaders"])
        #expect(Mirror(reflecting: User(id: 1, email: "", displayName: "")).children.map(\.label) == ["id", "email", "displayName", "online", "lastSeenAt", "bot", "createdAt", "picture"])
        let p = UserPicture(url: "", name: "", size: 0, type: "", sha256: "")
        #expect(Mirror(reflecting: p).children.map(\.label) == ["url", "name", "size", "type", "sha256"])
        #expect(Mirror(reflecting: ConversationsResponse(conversations: [], users: [])).children.map(\.label) == ["conversations", "users", "mutes"])
        #expect(Mirror(reflecting: Mute(conversationId: 1)).children.map(\.label) == ["conversationId", "until", "exceptMentions"])
    }
}
