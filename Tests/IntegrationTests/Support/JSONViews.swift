import Foundation
import NexusCore

extension Result {
    /// stdout decoded as one of NexusCore's wire types or of the views below.
    func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(out.utf8))
    }

    /// Each NDJSON line of stdout that decodes as `T`.
    func decodeLines<T: Decodable>(_ type: T.Type = T.self) -> [T] { IntegrationTests.decodeLines(out, as: T.self) }
}

/// Each NDJSON line of `text` that decodes as `T`.
func decodeLines<T: Decodable>(_ text: String, as type: T.Type) -> [T] {
    text.split(separator: "\n").compactMap { try? JSONDecoder().decode(T.self, from: Data($0.utf8)) }
}

// What nexusctl prints with --json beyond NexusCore's wire types (docs/json.md), as the
// tests read it. Written here rather than imported from NexusCLI, so a renamed field in
// the CLI fails these tests instead of changing both sides at once.

/// `send --json` and `retry --json` (one a message).
struct SentJSON: Decodable {
    var localId: String
    var status: String
    var conversationId: Int64?
    var message: Message?
}

/// `status --json`: the wire status and its words.
struct StatusJSON: Decodable {
    var message: Message
    var members: [MessageStatus.Member]
    var status: String
    var statusText: String
}

/// `history --json` without --all.
struct PageJSON: Decodable {
    var messages: [Message]
    var hasMore: Bool
    var next: Int64?
    var offline: Bool?
}

/// One conversation of `convos --json`: the wire summary's fields and its title.
struct ConvoJSON: Decodable {
    var id: Int64
    var title: String
    var unreadCount: Int
    var lastMessage: Message?
}

/// `new --json`: the wire response, with the conversation's title.
struct OpenedJSON: Decodable {
    struct Titled: Decodable {
        var id: Int64
        var title: String
    }
    var conversation: Titled
    var created: Bool
}

/// `convos --json`.
struct ConvosJSON: Decodable {
    var conversations: [ConvoJSON]
    var users: [NexusCore.User]
    var offline: Bool
}

/// `queue flush --json`.
struct FlushJSON: Decodable {
    var sent: [String]
    var queued: [String]
    var failed: [String]
}

/// One entry of `queue --json`.
struct QueueEntryJSON: Decodable {
    var localId: String
    var status: String
    var attempts: Int
    var nextAttemptAt: Timestamp?
    var lastError: String?
    var text: String
}

/// One profile of `profiles --json`.
struct ProfileJSON: Decodable {
    var name: String
    var current: Bool
}

/// `whoami --json`, `login --json`, `register --json`.
struct AccountJSON: Decodable {
    var user: NexusCore.User
}

/// `cache clear --json` and the like.
struct RemovedJSON: Decodable {
    var removed: Int
}

/// One line of `tail --json`: a message (with its status), a receipt or typing.
struct TailLineJSON: Decodable {
    var type: String
    var conversationId: Int64
    var seq: Int64?
    var localId: String?
    var text: String?
    /// A message's sender, or who a receipt or typing is from: their email.
    var sender: String?
    var user: String?
    var status: String?
    var statusText: String?
    /// A receipt's: "delivered" or "read".
    var kind: String?
}
