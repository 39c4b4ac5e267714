/// Membership changes of a group after its creation: the wire types of
/// `/v1/conversations/{id}/members…`, `leave` and `rename` (docs/protocol.md).

/// What a membership event did. It travels as a message (`Message.membership`), with a
/// seq of its own, so history pages stay gapless and every member's feed carries it.
/// The actor is the message's `senderId`.
public struct MembershipEvent: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case added, removed, left, renamed
    }

    public var kind: Kind
    /// `added` and `removed`: who (never empty). Absent for `left` (the actor) and `renamed`.
    public var userIds: [Int64]?
    /// `renamed`: the group's new name.
    public var name: String?

    public init(kind: Kind, userIds: [Int64]? = nil, name: String? = nil) {
        self.kind = kind
        self.userIds = userIds
        self.name = name
    }

    /// How a person reads it, from the actor's and the users' names: "Alice added Carol".
    public func sentence(actor: String, names: [String]) -> String {
        let list = Self.list(names)
        switch kind {
        case .added: return "\(actor) added \(list)"
        case .removed: return "\(actor) removed \(list)"
        case .left: return "\(actor) left"
        case .renamed: return "\(actor) renamed the group to \"\(name ?? "")\""
        }
    }

    /// "Carol", "Carol and Dave", "Carol, Dave and Erin".
    public static func list(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "nobody" }
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }
}

/// The body of every membership change. `localId` makes it idempotent, as for a send:
/// a repeat answers the original event with status `duplicate`.
public struct MembershipRequest: Codable, Sendable {
    public var localId: String
    /// add and remove: the members' emails (1 to 255).
    public var emails: [String]?
    /// rename: the new name.
    public var name: String?

    public init(localId: String, emails: [String]? = nil, name: String? = nil) {
        self.localId = localId
        self.emails = emails
        self.name = name
    }
}

/// One member of a conversation, as `GET /v1/conversations/{id}/members` lists it.
public struct Member: Codable, Hashable, Sendable {
    /// With presence (`online`, `lastSeenAt`), as the directory shows it.
    public var user: User
    /// Everything up to this seq reached one of their devices.
    public var deliveredSeq: Int64
    /// They have read everything up to this seq ("last read").
    public var readSeq: Int64
    /// When they joined (the group's creation, or their latest add).
    public var joinedAt: Timestamp

    public init(user: User, deliveredSeq: Int64, readSeq: Int64, joinedAt: Timestamp) {
        self.user = user
        self.deliveredSeq = deliveredSeq
        self.readSeq = readSeq
        self.joinedAt = joinedAt
    }
}

public struct MembersResponse: Codable, Sendable {
    public var conversationId: Int64
    public var kind: ConversationKind
    public var name: String?
    public var members: [Member]

    public init(conversationId: Int64, kind: ConversationKind, name: String?, members: [Member]) {
        self.conversationId = conversationId
        self.kind = kind
        self.name = name
        self.members = members
    }
}

/// The answer to a membership change.
public struct MembershipResponse: Codable, Sendable {
    public enum Status: String, Codable, Sendable {
        /// Applied now: `message` is its event.
        case created
        /// Applied before under this localId: `message` is the original event.
        case duplicate
        /// Nothing to change (already members, not members, already left): no event.
        case unchanged
    }

    public var localId: String
    public var status: Status
    public var message: Message?
    /// The conversation as the caller sees it now; absent once they left it.
    public var conversation: Conversation?
    /// For `unchanged`: why, in words.
    public var note: String?

    public init(localId: String, status: Status, message: Message? = nil, conversation: Conversation? = nil, note: String? = nil) {
        self.localId = localId
        self.status = status
        self.message = message
        self.conversation = conversation
        self.note = note
    }
}
