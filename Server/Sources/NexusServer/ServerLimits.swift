/// The server's resource bounds, in one place; docs/protocol.md ("Limits") lists them.
/// Tests shrink them to reach a limit quickly.
public struct ServerLimits: Sendable {
    /// How long a session (a token from register or login) works after its last use
    /// (`--session-idle`): each use slides its expiry.
    public var tokenTTLSeconds: Int64 = 30 * 86_400
    /// How long a session works after login however much it is used (`--session-max-age`); nil: no limit.
    public var sessionMaxAgeSeconds: Int64?
    /// Failed logins allowed within `loginWindowSeconds`: per account from one address,
    /// per address across accounts, and per account across addresses (not counted for an
    /// address that has logged in to the account within `loginTrustSeconds`). See LoginLimiter.
    public var loginFailuresPerAccountAddress = 5
    public var loginFailuresPerAddress = 20
    public var loginFailuresPerAccount = 50
    public var loginWindowSeconds: Int64 = 15 * 60
    public var loginTrustSeconds: Int64 = 30 * 86_400
    /// Long polls (`sync` with `wait` > 0) one user may hold open at once.
    public var pollsPerUser = 16
    /// Caps `sync`'s `wait` below the protocol's 60 s; only API fuzzing lowers it.
    public var syncWaitCapSeconds: Int64 = 60
    /// A connection with no request in progress and no bytes for this long is closed.
    public var idleTimeoutSeconds: Int64 = 75
    /// Connections the kernel may hold for nexusd to accept (the kernel caps it at
    /// net.core.somaxconn). Hummingbird's 256 overflowed when thousands of tails connected at
    /// once, as after a restart: each connection the full queue turned away waited a second
    /// for its SYN to be sent again (docs/deploy.md).
    public var listenBacklog = 4096
    /// Request headers, all together, and any one of them.
    public var maxHeaderBytes = 16 * 1024
    public var maxHeaderFieldBytes = 8 * 1024
    public var maxHeaderCount = 100
    /// Members of one group, its creator included (`nexusd --max-group-members`): a
    /// message to a group wakes every member's polls, so this bounds what one send costs.
    public var maxGroupMembers = 256
    /// Distinct emoji on one message, and the reactions one member may add to one message
    /// (`--max-reactions-per-message`, `--max-reactions-per-member`): every page of history
    /// carries all of a message's reactions, so without a bound one member's reactions would
    /// swell every member's reads.
    public var maxReactionsPerMessage = 50
    public var maxReactionsPerMemberPerMessage = 20
    /// Live outgoing hooks in one conversation, and of one member in one conversation
    /// (`--max-outgoing-hooks`, `--max-outgoing-hooks-per-member`): each message is POSTed
    /// once per hook.
    public var maxOutgoingHooksPerConversation = 20
    public var maxOutgoingHooksPerMemberPerConversation = 5
    /// Bytes of one sync answer, beside its 500 events: a page of large messages (long texts,
    /// many reactions) ends early, so no poll's answer, nor nexusd's memory while it encodes
    /// it, grows past this. A single event over it still goes, alone.
    public var maxSyncPageBytes = 4 * 1024 * 1024
    /// Bytes of one attachment (`nexusd --max-attachment`).
    public var maxAttachmentBytes: Int64 = 100 * 1024 * 1024
    /// Uploads no message refers to are deleted after this long.
    public var unreferencedUploadSeconds: Int64 = 86_400
    /// How long the search indexer waits when nothing waits for the index (SQLite): the
    /// index's usual lag. 250 ms: at 50 ms the passes themselves cost single sends ~10 % of
    /// nexusd's CPU (docs/benchmarks.md); searches read the waiting messages anyway. Tests
    /// make it long, so searches take the not-yet-indexed path.
    public var searchIndexIdleMilliseconds: Int64 = 250

    public init() {}

    /// Arrays and objects inside one another in a request body; our bodies need 3.
    public static let maxJSONDepth = 32
}
