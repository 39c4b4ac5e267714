#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NexusWire

/// A membership change, as the controller checked it: who may do it, and the users it names.
struct MembershipChange: Sendable {
    var conversationId: Int64
    var actor: User
    var localId: String
    var kind: MembershipEvent.Kind
    /// added and removed: the users named (distinct); ignored for left and renamed.
    var users: [User] = []
    /// renamed: the new name.
    var name: String?
}

enum MembershipOutcome: Sendable {
    /// Applied; `before` and `after` are the members around it, so everyone concerned is told.
    case created(Message, before: [Int64], after: [Int64])
    /// The actor used this localId before: the original event.
    case duplicate(Message)
    /// Nothing to change: all already members (add), none a member (remove), or the
    /// actor no longer a member (leave). `message` says which.
    case unchanged(String)
}

/// One member's row, for `GET /v1/conversations/{id}/members`.
struct MemberRow: Sendable {
    var user: User
    var deliveredSeq: Int64
    var readSeq: Int64
    var joinedAt: Timestamp
}

/// Group membership after creation: each change and its event (a message with a seq, so
/// history stays gapless and every member's feed carries it) in one transaction.
protocol MembershipStore: Sendable {
    /// Applies the change and appends its event, idempotent per (actor, localId). The
    /// event takes the conversation's next seq; the member rows change before it is
    /// written, so an added member's feed has it and a removed one's does not.
    func apply(_ change: MembershipChange) async throws -> MembershipOutcome
    /// The conversation's members with their watermarks, by name.
    func members(conversationId: Int64) async throws -> [MemberRow]
    /// The owner of bot `userId`; nil for people and for deleted bots' orphans.
    func owner(ofBot userId: Int64) async throws -> Int64?
}

extension Stores {
    /// The membership store on this backend's database (one more field in `Stores` would
    /// touch every store's construction).
    var membership: any MembershipStore {
        if let db = database as? PostgresDatabase { return PostgresMembershipStore(db: db) }
        return SQLiteMembershipStore(db: database as! SQLiteDatabase)
    }
}

/// What both backends share: which users a change really changes, its event, and the SQL.
enum MembershipRows {
    static let memberColumns = "mb.delivered_seq, mb.read_seq, mb.joined_at, u.id, u.email, u.display_name, u.last_seen_at, u.bot"

    static func member(_ row: some StoreRow) throws -> MemberRow {
        MemberRow(
            user: try Rows.user(row), deliveredSeq: try row.int("delivered_seq") ?? 0, readSeq: try row.int("read_seq") ?? 0,
            joinedAt: try Rows.timestamp(row, "joined_at") ?? Timestamp(milliseconds: 0))
    }

    /// The users the change really adds or removes, given the members before it; empty
    /// means nothing to do. For left: the actor, if still a member.
    static func affected(_ change: MembershipChange, before: Set<Int64>) -> [User] {
        switch change.kind {
        case .added: return change.users.filter { !before.contains($0.id) }
        case .removed: return change.users.filter { before.contains($0.id) }
        case .left: return before.contains(change.actor.id) ? [change.actor] : []
        case .renamed: return []
        }
    }

    /// Why the change changes nothing (so it gets no event), or nil when it changes something.
    static func unchanged(_ change: MembershipChange, affected: [User], name: String?) -> String? {
        switch change.kind {
        case .added where affected.isEmpty:
            return change.users.count == 1 ? "\(change.users[0].email) is already a member." : "They are all members already."
        case .removed where affected.isEmpty:
            return change.users.count == 1 ? "\(change.users[0].email) is not a member." : "None of them is a member."
        case .left where affected.isEmpty: return "You are not a member."
        case .renamed where name == change.name: return "The group is already called \(name ?? "")."
        default: return nil
        }
    }

    /// The event's membership field and its words ("Alice added Carol").
    static func event(_ change: MembershipChange, affected: [User]) -> (MembershipEvent, text: String) {
        let event = switch change.kind {
        case .added, .removed: MembershipEvent(kind: change.kind, userIds: affected.map(\.id))
        case .left: MembershipEvent(kind: .left)
        case .renamed: MembershipEvent(kind: .renamed, name: change.name)
        }
        return (event, event.sentence(actor: change.actor.shownName, names: affected.map(\.shownName)))
    }
}

/// What acts on a member's behalf has at most their rights: when people leave or are
/// removed, their bots leave with them and their hooks there are disabled, in the same
/// transaction, so no request after the change finds them still inside.
enum Delegates {
    static let disabledReason = "its owner is no longer a member of this conversation"

    /// The owners' bots among the conversation's members (ids are integers, safe inline;
    /// `= TRUE` reads SQLite's 0/1 and PostgreSQL's boolean alike).
    static func botsSQL(conversation: Int64, owners: [Int64]) -> String {
        """
        SELECT mb.user_id FROM members mb JOIN users u ON u.id = mb.user_id
        WHERE mb.conversation_id = \(conversation) AND u.bot = TRUE AND u.owner_id IN (\(list(owners)))
        """
    }

    static func removeSQL(conversation: Int64, bots: [Int64]) -> String {
        "DELETE FROM members WHERE conversation_id = \(conversation) AND user_id IN (\(list(bots)))"
    }

    /// The reason is a constant without quotes, so it is safe inline too.
    static func disableSQL(conversation: Int64, owners: [Int64], at: Int64) -> String {
        """
        UPDATE hooks SET disabled_at = \(at), disabled_reason = '\(disabledReason)'
        WHERE conversation_id = \(conversation) AND owner_id IN (\(list(owners))) AND revoked_at IS NULL AND disabled_at IS NULL
        """
    }

    private static func list(_ ids: [Int64]) -> String {
        ids.isEmpty ? "NULL" : ids.map(String.init).joined(separator: ", ")
    }
}

/// The `membership` column: the event as JSON, NULL for every other message.
enum MembershipColumn {
    static func encode(_ event: MembershipEvent) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(event)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func decode(_ text: String?) -> MembershipEvent? {
        guard let text, !text.isEmpty else { return nil }
        return try? JSONDecoder().decode(MembershipEvent.self, from: Data(text.utf8))
    }
}
