// A send's body is read on nexusd's hot path, and JSONDecoder took 6.6 % of a replica's CPU
// on the bench's single sends. This reader gives the same value as the Codable decoding
// (the tests compare them), or nil for anything it does not read exactly: the server then
// uses JSONDecoder, which decides, and words the error. A field added to SendRequest or
// Attachment must be added here too: a test counts them.

extension SendRequest {
    /// The body read by hand; nil when JSONDecoder must decide.
    public static func read(json bytes: UnsafeRawBufferPointer) -> SendRequest? {
        JSONByteReader.whole(bytes.assumingMemoryBound(to: UInt8.self)) { r throws(JSONByteReader.Unreadable) in try read(&r) }
    }

    package static func read(_ r: inout JSONByteReader) throws(JSONByteReader.Unreadable) -> SendRequest {
        var seen = JSONByteReader.Seen()
        var localId = "", text = ""
        var replyTo: Int64?
        var attachments: [Attachment]?
        try r.object { r, key throws(JSONByteReader.Unreadable) in
            if r.key(key, is: "localId") {
                try seen.mark(0); localId = try r.string()
            } else if r.key(key, is: "text") {
                try seen.mark(1); text = try r.string()
            } else if r.key(key, is: "replyTo") {
                try seen.mark(2); replyTo = try r.takeNull() ? nil : r.int64()
            } else if r.key(key, is: "attachments") {
                try seen.mark(3)
                if try !r.takeNull() {
                    var list: [Attachment] = []
                    try r.array { r throws(JSONByteReader.Unreadable) in list.append(try Attachment.read(&r)) }
                    attachments = list
                }
            } else {
                try r.skipValue()
            }
        }
        guard seen.has(all: 0, 1) else { throw .init() }
        return SendRequest(localId: localId, text: text, replyTo: replyTo, attachments: attachments)
    }
}

extension Attachment {
    package static func read(_ r: inout JSONByteReader) throws(JSONByteReader.Unreadable) -> Attachment {
        var seen = JSONByteReader.Seen()
        var name = "", type = "", sha256 = ""
        var size: Int64 = 0
        try r.object { r, key throws(JSONByteReader.Unreadable) in
            if r.key(key, is: "name") {
                try seen.mark(0); name = try r.string()
            } else if r.key(key, is: "size") {
                try seen.mark(1); size = try r.int64()
            } else if r.key(key, is: "type") {
                try seen.mark(2); type = try r.string()
            } else if r.key(key, is: "sha256") {
                try seen.mark(3); sha256 = try r.string()
            } else {
                try r.skipValue()
            }
        }
        guard seen.has(all: 0, 1, 2, 3) else { throw .init() }
        return Attachment(name: name, size: size, type: type, sha256: sha256)
    }
}
