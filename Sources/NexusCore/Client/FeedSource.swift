/// The part of NexusAPI a FeedFollower uses, so core tests can drive a follower in-process
/// and put faults in its way; nexusctl passes the real NexusAPI.
public protocol FeedSource: AnyObject {
    /// The server, as a person would name it in a message.
    var serverName: String { get }
    func sync(from cursor: FeedCursor?, last: Int?, conversationId: Int64?, waitSeconds: Int) throws(APIError) -> SyncResponse
    /// The same, with contacts' presence after the digest `presence` (see NexusAPI).
    func sync(from cursor: FeedCursor?, last: Int?, conversationId: Int64?, waitSeconds: Int, presence: String?)
        throws(APIError) -> SyncResponse
}

extension FeedSource {
    /// A source without presence (core tests' fakes) answers without it.
    public func sync(from cursor: FeedCursor?, last: Int?, conversationId: Int64?, waitSeconds: Int, presence: String?)
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
