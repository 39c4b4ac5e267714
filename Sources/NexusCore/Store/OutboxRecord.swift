#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an outbox entry changes on the server: a new message, a change to a sent one
/// (named by its conversation and seq), or a group's membership (add, remove, leave,
/// rename), or the account's mute of a conversation. Every kind is queued, ordered and
/// delivered alike.
public enum OutboxKind: String, Codable, Sendable {
    case send, edit, delete, react, unreact
    case add, remove, leave, rename
    case mute, unmute

    /// The change a non-send kind asks for.
    public var change: MessageChange.Kind? {
        switch self {
        case .send: nil
        case .edit: .edit
        case .delete: .delete
        case .react: .react
        case .unreact: .unreact
        case .add, .remove, .leave, .rename, .mute, .unmute: nil
        }
    }
}

/// One state change of an outbox entry. The outbox file is the log of these; an entry's
/// state is the fold of its records. Records written before changes existed have no
/// `kind`: they are sends.
struct OutboxRecord: Codable, Sendable, Equatable {
    enum Op: String, Codable, Sendable {
        /// Written, and fsynced, before any network I/O. Carries the text.
        case queued
        /// The server acknowledged it.
        case sent
        /// It will not be retried without `retry`.
        case failed
        /// An attempt failed in a way that may pass; the next one is due at `nextAttemptAt`.
        case deferred
        /// `retry`: a failed message goes back to the queue, due at once.
        case retry
        /// `queue drop`: the message is never sent. Written under the outbox lock only while
        /// no delivery has the message in flight (see `Outbox.drop`).
        case dropped
    }

    public var op: Op
    public var localId: String
    public var at: Timestamp
    public var conversationId: Int64?
    /// The other person's email, for a message queued before its direct conversation was known.
    public var to: String?
    public var text: String?
    public var messageId: Int64?
    public var seq: Int64?
    public var error: String?
    public var nextAttemptAt: Timestamp?
    /// On a compacted `queued` record: the attempts its dropped records counted.
    public var attempts: Int?
    /// On a `queued` record: what it changes; absent for a send.
    public var kind: OutboxKind?
    /// On a queued change: the seq of the message it changes (in `conversationId`).
    public var target: Int64?
    /// On a queued react or unreact: the reaction.
    public var emoji: String?
    /// On a queued send: the seq of the message it answers.
    public var replyTo: Int64?
    /// On a queued send: files to upload and attach (see OutboxFile).
    public var files: [OutboxFile]?
    /// On a queued add or remove: the members' emails.
    public var emails: [String]?
    /// On a `queued` record: the user id of the account that queued it (never its secret).
    /// Only this account sends it; records without one are the profile's account's.
    public var author: Int64?
    /// On a `queued` record: that account's email, for `queue` to say for whom it waits.
    var authorEmail: String?
    /// On a `queued` record of an access token (`$NEXUS_TOKEN`) whose user is not known:
    /// the token's SHA-256, so only a command with the same token sends it.
    var authorToken: String?
    /// On a queued mute: when it ends (nil: when unmuted).
    public var until: Timestamp?
    /// On a queued mute: a mention notifies all the same.
    public var exceptMentions: Bool?

    public init(
        op: Op, localId: String, at: Timestamp, conversationId: Int64? = nil, to: String? = nil, text: String? = nil,
        messageId: Int64? = nil, seq: Int64? = nil, error: String? = nil, nextAttemptAt: Timestamp? = nil
    ) {
        self.op = op
        self.localId = localId
        self.at = at
        self.conversationId = conversationId
        self.to = to
        self.text = text
        self.messageId = messageId
        self.seq = seq
        self.error = error
        self.nextAttemptAt = nextAttemptAt
    }
}

public enum OutboxStatus: String, Codable, Sendable {
    /// `dropped`: taken out by `queue drop`, never sent; only in reports, never in the outbox.
    case queued, sending, sent, failed, dropped
}

public struct OutboxEntry: Sendable, Equatable {
    public var kind: OutboxKind = .send
    public var localId: String
    /// nil until the conversation with `to` is known.
    public var conversationId: Int64?
    public var to: String?
    public var text: String
    public var queuedAt: Timestamp
    public var status: OutboxStatus
    /// Attempts that reached a verdict: sent, failed or deferred.
    public var attempts: Int
    public var lastError: String?
    /// When a deferred message may be tried again; nil when due now.
    public var nextAttemptAt: Timestamp?
    public var messageId: Int64?
    public var seq: Int64?
    /// For a change: the seq of the message it changes.
    public var target: Int64? = nil
    public var emoji: String? = nil
    public var replyTo: Int64? = nil
    /// Files to upload before the message goes (see OutboxFile).
    public var files: [OutboxFile] = []
    /// An add or remove: the members' emails.
    public var emails: [String] = []
    /// A mute: when it ends (nil: when unmuted), and whether a mention notifies all the same.
    public var until: Timestamp? = nil
    public var exceptMentions = false
    /// When its first failed try that may pass (a deferral) happened since it was queued or
    /// retried: the retry limit counts from here.
    var tryingSince: Timestamp? = nil
    /// Who queued it; nil for a record of an older nexusctl (the profile's account's).
    public var author: OutboxAuthor? = nil

    /// The message a change names, as `CONVERSATION/SEQ`.
    public var targetReference: MessageReference? {
        guard kind != .send, let c = conversationId, let t = target else { return nil }
        return MessageReference(conversationId: c, seq: t)
    }

    func isDue(at now: Timestamp) -> Bool {
        status == .queued && (nextAttemptAt.map { $0 <= now } ?? true)
    }
}

