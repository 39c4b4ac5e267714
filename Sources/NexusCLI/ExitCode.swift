import NexusCore

/// nexusctl's exit codes. They are part of the scripting contract: documented in
/// docs/exit-codes.md and `nexusctl help exit-codes`, and never renumbered.
public enum ExitCode: Int32, Sendable, CaseIterable {
    case ok = 0
    /// The command failed; for `send`, the message failed and will not be retried without `retry`.
    case failure = 1
    /// The command line is wrong.
    case usage = 2
    /// The conversation, user or message does not exist (or is not yours to see).
    case notFound = 3
    /// Not logged in, or the server rejected the credentials.
    case auth = 4
    /// The server failed (5xx) or answered something unexpected.
    case server = 5
    /// A local file could not be read or written; for `queue flush`, the outbox holds
    /// damaged records (`queue repair` shows them); for `send`, the outbox is full.
    case store = 6
    /// No secure connection: the server's certificate was refused, the TLS handshake failed,
    /// or a secret would have gone over plain http:// to a host that is not loopback. For
    /// `send` and `queue flush`, the messages stay queued until that is fixed.
    case tls = 7
    /// Standard output could not be written (a full disk): the command's work is done,
    /// but its report is lost. A closed pipe is not this: it ends quietly, as cat does.
    case output = 74
    /// The server could not be reached. For `send` and `queue flush`, the messages are
    /// safely queued and will be delivered later.
    case unavailable = 75

    public var meaning: String {
        switch self {
        case .ok: return "success"
        case .failure: return "failed (for send: refused at once, nothing is kept; refused at a later flush, it stays failed until `retry` or `queue drop`)"
        case .usage: return "usage error: the command line is wrong (nothing was queued)"
        case .notFound: return "not found: no such conversation, user or message"
        case .auth: return "authentication needed or refused, or the session expired: run `nexusctl login`"
        case .server: return "server error: nexusd failed or answered something unexpected"
        case .store: return "local store error: a file under $NEXUS_HOME could not be read or written (for queue flush: the outbox holds damaged records; see `nexusctl queue repair`; for send: \"Offline queue is full\", the message was not queued)"
        case .tls: return "no secure connection: the server's certificate was refused (unknown issuer, expired, wrong host name), the TLS handshake failed, or plain http:// to a host that is not loopback was refused; nothing was sent in the clear (for send: the message stays queued)"
        case .output: return "standard output could not be written (a full disk, an I/O error): what the command did is done, only its output was lost"
        case .unavailable: return "server unreachable, or it asked to wait (429): try again later (for send: the message is queued)"
        }
    }
}

extension ExitCode {
    /// The exit status of an entry's failure: 4 for the credentials, 3 for not found, else 1.
    init(_ failure: DeliveryVerdict.Failure) {
        switch failure {
        case .credentials: self = .auth
        case .notFound: self = .notFound
        case .outOfScope, .forbidden, .refused: self = .failure
        }
    }
}
