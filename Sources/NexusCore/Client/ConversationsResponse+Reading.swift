#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The conversation list of someone in ten thousand conversations is megabytes of JSON,
// and JSONDecoder took most of `convos`'s time over it. This reader gives the same value
// as the Codable decoding (the tests compare them), or nil for anything it does not read
// exactly (then the caller uses JSONDecoder, which decides). A field added to
// ConversationSummary, Message or User must be added here too: a test counts them.

extension ConversationsResponse {
    /// The list read by hand from the server's answer; nil when JSONDecoder must decide.
    public static func read(json bytes: [UInt8]) -> ConversationsResponse? {
        read(json: bytes, halvesFrom: SecondHalf.minimumBytes)
    }

    /// `halvesFrom`: the bytes from which a list's second half is read on a thread of its own.
    static func read(json bytes: [UInt8], halvesFrom: Int) -> ConversationsResponse? {
        bytes.withUnsafeBufferPointer { p in
            let secondHalf = SecondHalf.start(p, minimumBytes: halvesFrom)
            // Its thread reads `p`: done before `p` goes away, whatever happens here.
            defer { secondHalf?.join() }
            return JSONByteReader.whole(p) { r throws(JSONByteReader.Unreadable) in try Self.read(&r, secondHalf: secondHalf) }
        }
    }

    static func read(_ r: inout JSONByteReader, secondHalf: SecondHalf? = nil) throws(JSONByteReader.Unreadable) -> ConversationsResponse {
        var conversations: [ConversationSummary]?
        var users: [User]?
        var mutes: [Mute]?
        try r.object { r, key throws(JSONByteReader.Unreadable) in
            if r.key(key, is: "conversations") {
                guard conversations == nil else { throw .init() }
                var list: [ConversationSummary] = []
                // A conversation is a few hundred bytes of JSON: one allocation instead of
                // growing (and copying megabytes of summaries) a dozen times.
                list.reserveCapacity(min(r.b.count / 256, 1 << 17))
                try r.expect(UInt8(ascii: "["))
                if try !r.take(UInt8(ascii: "]")) {
                    repeat {
                        list.append(try ConversationSummary.read(&r))
                        // Where the second half begins: its thread's conversations, when it read them.
                        if r.i == secondHalf?.from, let rest = secondHalf?.join() {
                            list.append(contentsOf: rest.items)
                            r.i = rest.end
                            break
                        }
                    } while try r.take(UInt8(ascii: ","))
                    try r.expect(UInt8(ascii: "]"))
                }
                conversations = list
            } else if r.key(key, is: "users") {
                guard users == nil else { throw .init() }
                var list: [User] = []
                try r.array { r throws(JSONByteReader.Unreadable) in list.append(try User.read(&r)) }
                users = list
            } else if r.key(key, is: "mutes") {
                guard mutes == nil else { throw .init() }
                var list: [Mute] = []
                try r.array { r throws(JSONByteReader.Unreadable) in list.append(try Mute.read(&r)) }
                mutes = list
            } else {
                try r.skipValue()
            }
        }
        guard let conversations, let users else { throw .init() }
        return ConversationsResponse(conversations: conversations, users: users, mutes: mutes)
    }
}

extension Mute {
    static func read(_ r: inout JSONByteReader) throws(JSONByteReader.Unreadable) -> Mute {
        var seen = JSONByteReader.Seen()
        var mute = Mute(conversationId: 0)
        try r.object { r, key throws(JSONByteReader.Unreadable) in
            if r.key(key, is: "conversationId") {
                try seen.mark(0); mute.conversationId = try r.int64()
            } else if r.key(key, is: "until") {
                try seen.mark(1); mute.until = try r.takeNull() ? nil : r.timestamp()
            } else if r.key(key, is: "exceptMentions") {
                try seen.mark(2); mute.exceptMentions = try r.bool()
            } else {
                try r.skipValue()
            }
        }
        guard seen.has(all: 0, 2) else { throw .init() }
        return mute
    }
}

extension ConversationSummary {
    static func read(_ r: inout JSONByteReader) throws(JSONByteReader.Unreadable) -> ConversationSummary {
        var seen = JSONByteReader.Seen()
        var id: Int64 = 0, lastSeq: Int64 = 0, unread = 0
        var kind = ConversationKind.direct
        var name: String?
        var memberIds: [Int64] = []
        var lastMessage: Message?
        var created = Timestamp(milliseconds: 0), updated = Timestamp(milliseconds: 0)
        var readBy: Int?, readers: Int?
        try r.object { r, key throws(JSONByteReader.Unreadable) in
            if r.key(key, is: "id") {
                try seen.mark(0); id = try r.int64()
            } else if r.key(key, is: "kind") {
                try seen.mark(1)
                guard let k = ConversationKind(rawValue: try r.string()) else { throw .init() }
                kind = k
            } else if r.key(key, is: "name") {
                try seen.mark(2); name = try r.takeNull() ? nil : r.string()
            } else if r.key(key, is: "memberIds") {
                try seen.mark(3)
                try r.array { r throws(JSONByteReader.Unreadable) in memberIds.append(try r.int64()) }
            } else if r.key(key, is: "lastSeq") {
                try seen.mark(4); lastSeq = try r.int64()
            } else if r.key(key, is: "lastMessage") {
                try seen.mark(5); lastMessage = try r.takeNull() ? nil : Message.read(&r)
            } else if r.key(key, is: "createdAt") {
                try seen.mark(6); created = try r.timestamp()
            } else if r.key(key, is: "updatedAt") {
                try seen.mark(7); updated = try r.timestamp()
            } else if r.key(key, is: "unreadCount") {
                try seen.mark(8); unread = try r.int()
            } else if r.key(key, is: "lastMessageReadBy") {
                try seen.mark(9); readBy = try r.takeNull() ? nil : r.int()
            } else if r.key(key, is: "lastMessageReaders") {
                try seen.mark(10); readers = try r.takeNull() ? nil : r.int()
            } else {
                try r.skipValue()
            }
        }
        guard seen.has(all: 0, 1, 3, 4, 6, 7, 8) else { throw .init() }
        return ConversationSummary(
            id: id, kind: kind, name: name, memberIds: memberIds, lastSeq: lastSeq, lastMessage: lastMessage,
            createdAt: created, updatedAt: updated, unreadCount: unread, lastMessageReadBy: readBy, lastMessageReaders: readers)
    }
}

extension Message {
    /// The plain fields by hand; a message with reactions, files or a membership event
    /// (rare in a list) is decoded whole by JSONDecoder from its own bytes.
    static func read(_ r: inout JSONByteReader) throws(JSONByteReader.Unreadable) -> Message {
        r.skipSpace()
        let start = r.i
        var seen = JSONByteReader.Seen()
        var id: Int64 = 0, conversationId: Int64 = 0, seq: Int64 = 0, senderId: Int64 = 0
        var localId = "", text = ""
        var sentAt = Timestamp(milliseconds: 0)
        var replyTo: Int64?
        var editedAt: Timestamp?, deletedAt: Timestamp?
        var rich = false
        try r.object { r, key throws(JSONByteReader.Unreadable) in
            if r.key(key, is: "id") {
                try seen.mark(0); id = try r.int64()
            } else if r.key(key, is: "conversationId") {
                try seen.mark(1); conversationId = try r.int64()
            } else if r.key(key, is: "seq") {
                try seen.mark(2); seq = try r.int64()
            } else if r.key(key, is: "senderId") {
                try seen.mark(3); senderId = try r.int64()
            } else if r.key(key, is: "localId") {
                try seen.mark(4); localId = try r.string()
            } else if r.key(key, is: "text") {
                try seen.mark(5); text = try r.string()
            } else if r.key(key, is: "sentAt") {
                try seen.mark(6); sentAt = try r.timestamp()
            } else if r.key(key, is: "replyTo") {
                try seen.mark(7); replyTo = try r.takeNull() ? nil : r.int64()
            } else if r.key(key, is: "editedAt") {
                try seen.mark(8); editedAt = try r.takeNull() ? nil : r.timestamp()
            } else if r.key(key, is: "deletedAt") {
                try seen.mark(9); deletedAt = try r.takeNull() ? nil : r.timestamp()
            } else if r.key(key, is: "reactions") || r.key(key, is: "attachments") || r.key(key, is: "membership") {
                if try !r.takeNull() {
                    rich = true
                    try r.skipValue()
                }
            } else {
                try r.skipValue()
            }
        }
        if rich {
            let bytes = Data(UnsafeBufferPointer(rebasing: r.b[start..<r.i]))
            guard let m = try? JSONDecoder().decode(Message.self, from: bytes) else { throw .init() }
            return m
        }
        guard seen.has(all: 0, 1, 2, 3, 4, 5, 6) else { throw .init() }
        return Message(
            id: id, conversationId: conversationId, seq: seq, senderId: senderId, localId: localId, text: text, sentAt: sentAt,
            replyTo: replyTo, editedAt: editedAt, deletedAt: deletedAt)
    }
}

extension User {
    static func read(_ r: inout JSONByteReader) throws(JSONByteReader.Unreadable) -> User {
        var seen = JSONByteReader.Seen()
        var id: Int64 = 0
        var email = "", displayName = ""
        var online: Bool?, bot: Bool?
        var lastSeenAt: Timestamp?, createdAt: Timestamp?
        var picture: UserPicture?
        try r.object { r, key throws(JSONByteReader.Unreadable) in
            if r.key(key, is: "id") {
                try seen.mark(0); id = try r.int64()
            } else if r.key(key, is: "email") {
                try seen.mark(1); email = try r.string()
            } else if r.key(key, is: "displayName") {
                try seen.mark(2); displayName = try r.string()
            } else if r.key(key, is: "online") {
                try seen.mark(3); online = try r.takeNull() ? nil : r.bool()
            } else if r.key(key, is: "lastSeenAt") {
                try seen.mark(4); lastSeenAt = try r.takeNull() ? nil : r.timestamp()
            } else if r.key(key, is: "bot") {
                try seen.mark(5); bot = try r.takeNull() ? nil : r.bool()
            } else if r.key(key, is: "createdAt") {
                try seen.mark(6); createdAt = try r.takeNull() ? nil : r.timestamp()
            } else if r.key(key, is: "picture") {
                try seen.mark(7); picture = try r.takeNull() ? nil : UserPicture.read(&r)
            } else {
                try r.skipValue()
            }
        }
        guard seen.has(all: 0, 1, 2) else { throw .init() }
        return User(
            id: id, email: email, displayName: displayName, online: online, lastSeenAt: lastSeenAt, bot: bot, createdAt: createdAt,
            picture: picture)
    }
}

extension UserPicture {
    static func read(_ r: inout JSONByteReader) throws(JSONByteReader.Unreadable) -> UserPicture {
        var seen = JSONByteReader.Seen()
        var url = "", name = "", type = "", sha256 = ""
        var size: Int64 = 0
        try r.object { r, key throws(JSONByteReader.Unreadable) in
            if r.key(key, is: "url") {
                try seen.mark(0); url = try r.string()
            } else if r.key(key, is: "name") {
                try seen.mark(1); name = try r.string()
            } else if r.key(key, is: "size") {
                try seen.mark(2); size = try r.int64()
            } else if r.key(key, is: "type") {
                try seen.mark(3); type = try r.string()
            } else if r.key(key, is: "sha256") {
                try seen.mark(4); sha256 = try r.string()
            } else {
                try r.skipValue()
            }
        }
        guard seen.has(all: 0, 1, 2, 3, 4) else { throw .init() }
        return UserPicture(url: url, name: name, size: size, type: type, sha256: sha256)
    }
}
