/// Why a call to nexusd did not succeed, sorted by what the caller can do about it.
public enum APIError: Error, Equatable, CustomStringConvertible {
    /// The server could not be reached; nothing was delivered. Try again later.
    case unreachable(String)
    /// The connection broke or timed out mid-request; the server may have acted on it.
    case interrupted(String)
    /// The server answered with an error status.
    case server(status: Int, code: String, message: String, retryAfter: Int?)
    /// The server's answer could not be understood.
    case badResponse(String)
    /// The HTTPS connection was refused (certificate or handshake); nothing was sent.
    case tls(TLSFailure)
    /// A password or token would have gone over plain http:// to a host that is not
    /// loopback; refused before connecting.
    case plainHTTPRefused(String)

    public var description: String {
        switch self {
        case .unreachable(let why): return why
        case .interrupted(let why): return why
        case .server(_, _, let message, _): return message
        case .badResponse(let why): return "unexpected answer from the server: \(why)"
        case .tls(let failure): return failure.description
        case .plainHTTPRefused(let server):
            return "refusing to send a password or token in the clear to \(server): it is plain http:// to a host that is not loopback"
        }
    }

    public var status: Int? {
        if case .server(let status, _, _, _) = self { return status }
        return nil
    }

    /// The wait the server asked for with `Retry-After` (a 429 or 503), in seconds.
    public var retryAfter: Int? {
        if case .server(_, _, _, let seconds) = self { return seconds }
        return nil
    }

    /// True when the server could not be reached at all, or the connection broke: the
    /// case where reading from the local cache is the honest answer.
    public var isNetwork: Bool {
        switch self {
        case .unreachable, .interrupted: return true
        default: return false
        }
    }

    /// True when no secure connection could be made (certificate, handshake, or plain
    /// http:// refused): messages stay queued, and the run stops until that is fixed.
    var isTransportSecurity: Bool {
        switch self {
        case .tls, .plainHTTPRefused: return true
        default: return false
        }
    }

    /// The server refused to store anything for want of space (503 `storage_full`).
    var isStorageFull: Bool {
        if case .server(503, "storage_full", _, _) = self { return true }
        return false
    }

    /// True for failures that may go away by themselves: network trouble, 429, 5xx.
    var isTransient: Bool {
        switch self {
        case .unreachable, .interrupted: return true
        case .server(let status, _, _, _): return status == 429 || status >= 500
        case .badResponse, .tls, .plainHTTPRefused: return false
        }
    }
}
