import Foundation
import Testing
@testable import NexusCore

/// The outbox's lines are read by hand (OutboxRecord.read), with JSONDecoder for whatever the
/// reader is not sure of: it must give what JSONDecoder gives, or nil, never another value.
struct OutboxRecordReadingTests {
    static let check = HandReaderCheck<OutboxRecord> { bytes in bytes.withUnsafeBufferPointer { OutboxRecord.read(line: $0) } }

    /// A line as the outbox writes it.
    static func line(_ record: OutboxRecord) -> String {
        String(decoding: try! JSONLinesFile.lineEncoder().encode(record), as: UTF8.self)
    }

    static let at = Timestamp(milliseconds: 1_764_000_000_123)

    static var everyKind: [OutboxRecord] {
        var records = [
            OutboxRecord(op: .queued, localId: "l1", at: at, conversationId: 4, text: "hi \"you\"\n/é🙂"),
            OutboxRecord(op: .queued, localId: "l2", at: at, to: "bob@example.com", text: ""),
            OutboxRecord(op: .sent, localId: "l1", at: at, messageId: 99, seq: 12),
            OutboxRecord(op: .failed, localId: "l1", at: at, error: "not a member (403)"),
            OutboxRecord(op: .deferred, localId: "l1", at: at, error: "unreachable", nextAttemptAt: Timestamp(milliseconds: 1_764_000_060_000)),
            OutboxRecord(op: .retry, localId: "l1", at: at),
            OutboxRecord(op: .dropped, localId: "l1", at: at),
        ]
        var compacted = OutboxRecord(op: .queued, localId: "l3", at: at, conversationId: 4, text: "t")
        compacted.attempts = 3
        compacted.replyTo = 7
        var edit = OutboxRecord(op: .queued, localId: "l4", at: at, conversationId: 4, text: "new words")
        edit.kind = .edit
        edit.target = 12
        var react = OutboxRecord(op: .queued, localId: "l5", at: at, conversationId: 4)
        react.kind = .react
        react.target = 12
        react.emoji = "👍"
        var add = OutboxRecord(op: .queued, localId: "l6", at: at, conversationId: 4)
        add.kind = .add
        add.emails = ["a@example.com", "b@example.com"]
        var leave = OutboxRecord(op: .queued, localId: "l7", at: at, conversationId: 4)
        leave.kind = .leave
        leave.emails = []
        var mute = OutboxRecord(op: .queued, localId: "l8", at: at, conversationId: 4)
        mute.kind = .mute
        mute.until = Timestamp(milliseconds: 1_764_000_060_000)
        mute.exceptMentions = true
        records += [compacted, edit, react, add, leave, mute]
        return records
    }

    @Test func readsEveryKindOfLineAsJSONDecoderDoes() {
        for record in Self.everyKind {
            Self.check.readsByHand(Self.line(record))
            #expect(Array(Self.line(record).utf8).withUnsafeBufferPointer { OutboxRecord.read(line: $0) } == record)
        }
        Self.check.readsByHand(#"{"at":"2026-11-29T10:00:00.000Z","future":[1,{"x":null}],"localId":"l","op":"queued","text":null,"kind":null,"files":null}"#)
    }

    @Test func leavesTheRestToJSONDecoder() {
        var withFiles = OutboxRecord(op: .queued, localId: "l", at: Self.at, conversationId: 1, text: "caption")
        withFiles.files = [OutboxFile(path: "/tmp/a", name: "a", size: 1, sha256: String(repeating: "ab", count: 32), type: "text/plain")]
        let at = #""at":"2026-11-29T10:00:00.000Z""#
        let cases: [String] = [
            Self.line(withFiles),                                     // files: JSONDecoder reads them
            #"{\#(at),"localId":"l","op":"later"}"#,                  // an op this build does not know
            #"{\#(at),"localId":"l","op":"queued","kind":"poke"}"#,   // a kind it does not know
            #"{"localId":"l","op":"queued"}"#,                        // no time
            #"{\#(at),"op":"queued"}"#,                               // no localId
            #"{\#(at),"localId":"l"}"#,                               // no op
            #"{\#(at),"localId":"l","op":"queued","attempts":1.5}"#,
            #"{\#(at),"localId":"l","op":"queued","seq":"3"}"#,
            #"{\#(at),"localId":"l","op":"queued","emails":[1]}"#,
            #"{\#(at),"localId":"l","op":"queued","localId":"m"}"#,   // a repeated key
            #"{\#(at),"localId":"l","op":"queued"} x"#,               // trailing bytes
            "", "{", "[]", "null",
        ]
        for text in cases { Self.check.leavesToJSONDecoder(Array(text.utf8)) }
    }

    @Test func mangledLinesNeverReadOtherwise() {
        var record = OutboxRecord(op: .deferred, localId: "l\u{e9}", at: Self.at, conversationId: 4, text: "a\"b", error: "x",
                                  nextAttemptAt: Self.at)
        record.emails = ["a@b"]
        Self.check.compareMangled(Array(Self.line(record).utf8))
    }

    /// The file as a whole reads as it did: hand-read lines, a line left to JSONDecoder, a
    /// damaged line skipped and kept, and a torn tail.
    @Test func aFileReadsAsWithJSONDecoderAlone() {
        var withFiles = OutboxRecord(op: .queued, localId: "f", at: Self.at, conversationId: 1, text: "caption")
        withFiles.files = [OutboxFile(path: "/tmp/a", name: "a", size: 1, sha256: "s", type: "text/plain")]
        let lines = Self.everyKind.map(Self.line) + [Self.line(withFiles), #"{"op":"queued","#]
        let bytes = Array((lines.joined(separator: "\n") + "\n" + #"{"op":"sen"#).utf8)
        let read = JSONLinesFile.parse(bytes, as: OutboxRecord.self)
        #expect(read.records == Self.everyKind + [withFiles])
        #expect(read.skipped.map(\.line) == [lines.count])
        #expect(read.tornTail)
    }

    /// A field added to OutboxRecord must be read by hand too (OutboxRecord+Reading.swift),
    /// or the outbox would lose it on the way back in.
    @Test func everyFieldIsKnownToTheReader() {
        #expect(Mirror(reflecting: OutboxRecord(op: .queued, localId: "", at: Self.at)).children.map(\.label) == [
            "op", "localId", "at", "conversationId", "to", "text", "messageId", "seq", "error", "nextAttemptAt", "attempts", "kind",
            "target", "emoji", "replyTo", "files", "emails",
            "author", "authorEmail", "authorToken", "until", "exceptMentions",
        ])
    }
}
