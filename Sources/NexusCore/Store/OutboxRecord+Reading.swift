// Every send, flush and `queue` reads the outbox whole (Outbox.read, the claim view), and
// JSONDecoder took 29 % of nexusctl's CPU in a flush of 10,030 messages. Same rules as the
// wire's hand readers: JSONDecoder's value, or nil for anything this does not read exactly;
// JSONLinesFile.parse then asks JSONDecoder, which decides (a line it refuses is skipped and
// kept, as before). A field added to OutboxRecord must be added here too: a test counts them.

extension OutboxRecord: JSONLineReadable {
    static func read(line: UnsafeBufferPointer<UInt8>) -> OutboxRecord? {
        JSONByteReader.whole(line) { r throws(JSONByteReader.Unreadable) in try read(&r) }
    }

    static func read(_ r: inout JSONByteReader) throws(JSONByteReader.Unreadable) -> OutboxRecord {
        var seen = JSONByteReader.Seen()
        var record = OutboxRecord(op: .queued, localId: "", at: Timestamp(milliseconds: 0))
        try r.object { r, key throws(JSONByteReader.Unreadable) in
            if r.key(key, is: "op") {
                try seen.mark(0)
                guard let op = Op(rawValue: try r.string()) else { throw .init() }
                record.op = op
            } else if r.key(key, is: "localId") {
                try seen.mark(1); record.localId = try r.string()
            } else if r.key(key, is: "at") {
                try seen.mark(2); record.at = try r.timestamp()
            } else if r.key(key, is: "conversationId") {
                try seen.mark(3); record.conversationId = try r.takeNull() ? nil : r.int64()
            } else if r.key(key, is: "to") {
                try seen.mark(4); record.to = try r.takeNull() ? nil : r.string()
            } else if r.key(key, is: "text") {
                try seen.mark(5); record.text = try r.takeNull() ? nil : r.string()
            } else if r.key(key, is: "messageId") {
                try seen.mark(6); record.messageId = try r.takeNull() ? nil : r.int64()
            } else if r.key(key, is: "seq") {
                try seen.mark(7); record.seq = try r.takeNull() ? nil : r.int64()
            } else if r.key(key, is: "error") {
                try seen.mark(8); record.error = try r.takeNull() ? nil : r.string()
            } else if r.key(key, is: "nextAttemptAt") {
                try seen.mark(9); record.nextAttemptAt = try r.takeNull() ? nil : r.timestamp()
            } else if r.key(key, is: "attempts") {
                try seen.mark(10); record.attempts = try r.takeNull() ? nil : r.int()
            } else if r.key(key, is: "kind") {
                try seen.mark(11)
                if try !r.takeNull() {
                    guard let kind = OutboxKind(rawValue: try r.string()) else { throw .init() }
                    record.kind = kind
                }
            } else if r.key(key, is: "target") {
                try seen.mark(12); record.target = try r.takeNull() ? nil : r.int64()
            } else if r.key(key, is: "emoji") {
                try seen.mark(13); record.emoji = try r.takeNull() ? nil : r.string()
            } else if r.key(key, is: "replyTo") {
                try seen.mark(14); record.replyTo = try r.takeNull() ? nil : r.int64()
            } else if r.key(key, is: "files") {
                // Rare (a send with files): JSONDecoder reads the line.
                try seen.mark(15)
                guard try r.takeNull() else { throw .init() }
            } else if r.key(key, is: "emails") {
                try seen.mark(16)
                if try !r.takeNull() {
                    var emails: [String] = []
                    try r.array { r throws(JSONByteReader.Unreadable) in emails.append(try r.string()) }
                    record.emails = emails
                }
            } else if r.key(key, is: "author") {
                try seen.mark(17); record.author = try r.takeNull() ? nil : r.int64()
            } else if r.key(key, is: "authorEmail") {
                try seen.mark(18); record.authorEmail = try r.takeNull() ? nil : r.string()
            } else if r.key(key, is: "authorToken") {
                try seen.mark(19); record.authorToken = try r.takeNull() ? nil : r.string()
            } else if r.key(key, is: "until") {
                try seen.mark(20); record.until = try r.takeNull() ? nil : r.timestamp()
            } else if r.key(key, is: "exceptMentions") {
                try seen.mark(21); record.exceptMentions = try r.takeNull() ? nil : r.bool()
            } else {
                try r.skipValue()
            }
        }
        guard seen.has(all: 0, 1, 2) else { throw .init() }
        return record
    }
}
