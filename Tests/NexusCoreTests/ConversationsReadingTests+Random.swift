import NexusCore

/// SplitMix64: the same lists for a seed on every run, so a failure can be repeated.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension String {
    /// Text that needs every kind of escape: quotes, backslashes, slashes, control
    /// characters, non-ASCII, characters outside the BMP, and a byte order mark.
    static func random(_ rng: inout SeededRandom) -> String {
        let pieces = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\r", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "é", "e\u{301}", "中", "🙂", "👩‍👩‍👧", "\u{FEFF}", "\u{2028}", "{", "}", "[", ",", ":", "null", "0"]
        return (0..<Int.random(in: 0...12, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }
}

extension ConversationsResponse {
    static func random(_ rng: inout SeededRandom) -> ConversationsResponse {
        func maybe<T>(_ value: T, _ rng: inout SeededRandom) -> T? { Bool.random(using: &rng) ? value : nil }
        func id(_ rng: inout SeededRandom) -> Int64 {
            [Int64.random(in: 0...1000, using: &rng), Int64.random(in: .min ... .max, using: &rng), .max, .min, 0, -1].randomElement(using: &rng)!
        }
        func time(_ rng: inout SeededRandom) -> Timestamp {
            Timestamp(milliseconds: Int64.random(in: -62_167_219_200_000...253_402_300_799_999, using: &rng))
        }
        let conversations = (0..<Int.random(in: 0...40, using: &rng)).map { _ -> ConversationSummary in
            var message: Message?
            if Bool.random(using: &rng) {
                message = Message(id: id(&rng), conversationId: id(&rng), seq: id(&rng), senderId: id(&rng), localId: .random(&rng), text: .random(&rng),
                                  sentAt: time(&rng), replyTo: maybe(id(&rng), &rng), editedAt: maybe(time(&rng), &rng), deletedAt: maybe(time(&rng), &rng),
                                  reactions: Int.random(in: 0...5, using: &rng) == 0 ? [Reaction(emoji: .random(&rng), userIds: [id(&rng)])] : nil,
                                  membership: Int.random(in: 0...5, using: &rng) == 0 ? MembershipEvent(kind: .added, userIds: [id(&rng)]) : nil)
            }
            return ConversationSummary(
                id: id(&rng), kind: Bool.random(using: &rng) ? .group : .direct, name: maybe(String.random(&rng), &rng),
                memberIds: (0..<Int.random(in: 0...5, using: &rng)).map { _ in id(&rng) }, lastSeq: id(&rng), lastMessage: message,
                createdAt: time(&rng), updatedAt: time(&rng), unreadCount: Int(id(&rng)), lastMessageReadBy: maybe(Int(id(&rng)), &rng),
                lastMessageReaders: maybe(Int(id(&rng)), &rng))
        }
        let users = (0..<Int.random(in: 0...10, using: &rng)).map { _ in
            User(id: id(&rng), email: .random(&rng), displayName: .random(&rng), online: maybe(Bool.random(using: &rng), &rng),
                 lastSeenAt: maybe(time(&rng), &rng), bot: maybe(Bool.random(using: &rng), &rng), createdAt: maybe(time(&rng), &rng),
                 picture: maybe(UserPicture(url: .random(&rng), name: .random(&rng), size: id(&rng), type: .random(&rng), sha256: .random(&rng)), &rng))
        }
        return ConversationsResponse(conversations: conversations, users: users)
    }
}
