/// Request bodies for changes to sent messages: edits, deletes and reactions. Each carries
/// its own `localId`, so a change resent after a lost answer is applied once.

/// One change of a batch: `POST /v1/messages/changes`.
public struct ChangeItem: Codable, Sendable, Equatable {
    public var localId: String
    public var kind: MessageChange.Kind
    public var conversationId: Int64
    /// The changed message's seq in its conversation.
    public var seq: Int64
    /// The new text, for `edit`.
    public var text: String?
    /// The reaction, for `react` and `unreact`.
    public var emoji: String?

    public init(localId: String, kind: MessageChange.Kind, conversationId: Int64, seq: Int64, text: String? = nil, emoji: String? = nil) {
        self.localId = localId
        self.kind = kind
        self.conversationId = conversationId
        self.seq = seq
        self.text = text
        self.emoji = emoji
    }
}

public struct ChangesRequest: Codable, Sendable {
    public var changes: [ChangeItem]
    public init(changes: [ChangeItem]) { self.changes = changes }
}

/// One result per change, in order: `created` (applied now), `duplicate` (applied before
/// under this localId) or `rejected` with the HTTP status a single change would have had
/// (404 no such message or not a member, 403 not the sender, 400 bad input). `message` is
/// the message as it is after the change.
public struct ChangesResponse: Codable, Sendable {
    public var results: [BatchResult]
    public init(results: [BatchResult]) { self.results = results }
}
