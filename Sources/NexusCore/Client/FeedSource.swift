/// The part of NexusAPI a FeedFollower uses, so core tests can drive a follower in-process
/// and put faults in its way; nexusctl passes the real NexusAPI.
public protocol FeedSource: AnyObject {
    /// The server, as a person would name it in a message.
    var serverName: String { get }
    func sync(from cursor: FeedCursor?, last: Int?, conversationId: Int64?, waitSeconds: Int) throws(APIError) -> SyncResponse
    /// The same, also asking for contacts' presence or the account's mutes (see NexusAPI).
    func sync(from cursor: FeedCursor?, last: Int?, conversationId: Int64?, waitSeconds: Int, asking: FeedAsks)
        throws(APIError) -> SyncResponse
}

/// What a poll asks for beside the feed: each a digest of the last answer ("" at first),
/// answered when what it covers moved; nil asks nothing.
public struct FeedAsks: Sendable, Equatable {
    public var presence: String?
    public var mutes: String?

    public init(presence: String? = nil, mutes: String? = nil) {
        self.presence = presence
        self.mutes = mutes
    }
}

extension FeedSource {
    /// A source without presence or mutes (core tests' fakes) answers without them.
    public func sync(from cursor: FeedCursor?, last: Int?, conversationId: Int64?, waitSeconds: Int, asking: FeedAsks)
        throws(APIError) -> SyncResponse
    {
        try sync(from: cursor, last: last, conversationId: conversationId, waitSeconds: waitSeconds)
    }
}

extension NexusAPI: FeedSource {
    public var serverName: String { "\(address)" }
}

extension APIError {
    /// The server doesn't know the cursor: its database was restored or reset since.
    var isUnknownCursor: Bool {
        if case .server(410, "unknown_cursor", _, _) = self { return true }
        return false
    }
}
