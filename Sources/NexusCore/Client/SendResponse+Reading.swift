// A single send's answer, read by hand: a client that sends one message after another (a
// bot, the bench's load generator) spent a third of its CPU in JSONDecoder on this answer.
// Same rules as the other hand readers: the value JSONDecoder gives, or nil for anything it
// does not read exactly (then JSONDecoder decides). A field added to SendResponse must be
// added here too: a test counts them.

extension SendResponse {
    /// The answer read by hand; nil when JSONDecoder must decide.
    public static func read(json bytes: [UInt8]) -> SendResponse? {
        bytes.withUnsafeBufferPointer { p in
            JSONByteReader.whole(p) { r throws(JSONByteReader.Unreadable) in
                var seen = JSONByteReader.Seen()
                var message: Message?
                var duplicate = false
                try r.object { r, key throws(JSONByteReader.Unreadable) in
                    if r.key(key, is: "message") {
                        try seen.mark(0); message = try Message.read(&r)
                    } else if r.key(key, is: "duplicate") {
                        try seen.mark(1); duplicate = try r.bool()
                    } else {
                        try r.skipValue()
                    }
                }
                guard seen.has(all: 0, 1), let message else { throw .init() }
                return SendResponse(message: message, duplicate: duplicate)
            }
        }
    }
}
