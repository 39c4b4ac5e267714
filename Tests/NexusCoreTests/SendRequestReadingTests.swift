import Foundation
import Testing
@testable import NexusCore

/// nexusd reads a send's body by hand (SendRequest.read), and asks JSONDecoder only when the
/// hand reader gives up: it must give what JSONDecoder gives, or nil, and never a value where
/// JSONDecoder fails (the client would get 201 where it should get 400).
struct SendRequestReadingTests {
    static let check = HandReaderCheck<SendRequest> { $0.withUnsafeBytes { SendRequest.read(json: $0) } }

    static let file = #"{"name":"a.txt","size":3,"type":"text/plain","sha256":"\#(String(repeating: "ab", count: 32))"}"#

    @Test func readsEveryFieldAsJSONDecoderDoes() {
        Self.check.readsByHand(#"{"localId":"l1","text":"hi"}"#)
        Self.check.readsByHand(#"{"text":"","localId":"","replyTo":9223372036854775807,"attachments":[\#(Self.file),\#(Self.file)]}"#)
        Self.check.readsByHand(#"{"localId":"l","text":"t","replyTo":null,"attachments":null}"#)
        Self.check.readsByHand(#"{"localId":"l","text":"t","replyTo":-4,"attachments":[]}"#)
        Self.check.readsByHand(" \n\t{ \"localId\" : \"l\" ,\r\n \"text\" : \"t\" } \n")
    }

    @Test func ignoresUnknownFieldsOfAnyShape() {
        Self.check.readsByHand(#"{"localId":"l","future":{"a":[1,-2,{"b":null}],"c":"\u00e9\n","d":true,"e":false},"text":"t","n":0}"#)
        Self.check.readsByHand(#"{"localId":"l","text":"t","attachments":[{"name":"a","size":1,"type":"t","sha256":"s","later":[{}]}]}"#)
    }

    @Test func readsEscapesAndUnicode() {
        for text in [#"a\"b\\c\/d"#, #"\b\f\n\r\t"#, #"\u0000\u001f\u00e9\u20ac"#, #"\ud83d\ude42 and \uD83D\uDE42"#, "é🙂中文 ‮", #"\u0041\u00"# + "41"] {
            Self.check.readsByHand(#"{"localId":"\#(text)","text":"\#(text)"}"#)
        }
    }

    /// What it does not read exactly goes to JSONDecoder, which decides (value or error).
    @Test func leavesTheRestToJSONDecoder() {
        let cases: [String] = [
            #"{"localId":"l","text":"t","replyTo":1.0}"#,                  // a fraction
            #"{"localId":"l","text":"t","replyTo":1e2}"#,                  // an exponent
            #"{"localId":"l","text":"t","replyTo":01}"#,                   // a leading zero
            #"{"localId":"l","text":"t","replyTo":99999999999999999999}"#, // too large
            #"{"localId":"l","text":"t","replyTo":"2"}"#,                  // a string for a number
            #"{"localId":"l","text":3}"#,                                  // a number for a string
            #"{"localId":"l","text":null}"#,                               // null for a required string
            #"{"localId":"l","text":"\ud83d"}"#,                           // a lone surrogate
            #"{"localId":"l","text":"\ude42\ud83d"}"#,                     // surrogates the wrong way round
            #"{"localId":"l","text":"\x"}"#,                               // an unknown escape
            #"{"localId":"l","text":"tab\#there"}"#,                       // a raw control character
            #"{"localId":"l","text":"t","localId":"m"}"#,                  // a repeated key
            #"{"localId":"l","\u0074ext":"t"}"#,                           // an escaped key
            #"{"localId":"l"}"#,                                           // no text
            #"{"text":"t"}"#,                                              // no localId
            #"{"localId":"l","text":"t","attachments":{}}"#,               // an object for a list
            #"{"localId":"l","text":"t","attachments":[{"name":"a","size":1,"type":"t"}]}"#, // no sha256
            #"{"localId":"l","text":"t","attachments":[{"name":"a","size":1.5,"type":"t","sha256":"s"}]}"#,
            #"{"localId":"l","text":"t"}x"#,                               // trailing bytes
            #"{"localId":"l","text":"t",}"#,                               // a trailing comma
            #"{"localId":"l","text":"t","future":nul}"#,
            #"{"localId":"l","text":"t","future":truex}"#,
            "", "[]", "null", "{", #"{"localId":"l","text":"t""#,
        ]
        for text in cases { Self.check.leavesToJSONDecoder(Array(text.utf8)) }
        // Bytes that are not UTF-8, in a field read and in one skipped.
        for bad: [UInt8] in [[0xC3], [0xFF, 0xFE], [0xED, 0xA0, 0x80]] {
            for template in [#"{"localId":"l","text":"X"}"#, #"{"localId":"l","text":"t","x":"X"}"#] {
                let bytes = Array(template.utf8)
                let at = bytes.firstIndex(of: UInt8(ascii: "X"))!
                Self.check.leavesToJSONDecoder(Array(bytes[..<at]) + bad + Array(bytes[(at + 1)...]))
            }
        }
    }

    /// Every prefix of a valid body, and the body with each byte replaced (HandReaderCheck).
    @Test func mangledBodiesNeverReadOtherwise() {
        Self.check.compareMangled(Array(#"{"localId":"l\u00e9","text":"a\"b","replyTo":12,"attachments":[\#(Self.file)],"x":[true,{"y":null}]}"#.utf8))
    }

    /// A field added to these types must be read by hand too (SendRequest+Reading.swift), or
    /// the server would drop it in silence.
    @Test func everyFieldIsKnownToTheReader() {
        #expect(Mirror(reflecting: SendRequest(localId: "", text: "")).children.map(\.label) == ["localId", "text", "replyTo", "attachments"])
        #expect(Mirror(reflecting: Attachment(name: "", size: 0, type: "", sha256: "")).children.map(\.label) == ["name", "size", "type", "sha256"])
    }
}
