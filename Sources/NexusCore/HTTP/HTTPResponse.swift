public struct HTTPResponse: Sendable {
    public var status: Int
    var headers: [(String, String)]
    public var body: [UInt8]

    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.0.lowercased() == lower }?.1
    }

    var isChunked: Bool { header("Transfer-Encoding")?.lowercased().contains("chunked") ?? false }

    /// The body's stated length; nil when none is stated.
    func contentLength() throws(HTTPClientError) -> Int? {
        guard let text = header("Content-Length") else { return nil }
        guard let length = Int(text), length >= 0 else { throw .malformedResponse("bad Content-Length") }
        return length
    }
}

public enum HTTPClientError: Error, Equatable, CustomStringConvertible {
    /// Nothing answered: refused, unreachable, DNS failure. Safe to try again later.
    case unreachable(String)
    /// The connection broke or timed out after the request may have been sent.
    case connectionLost(String)
    case timedOut
    case malformedResponse(String)
    /// The HTTPS connection was refused: the certificate or the handshake.
    case tls(TLSFailure)

    /// Nothing answered, or the connection broke: another replica may answer instead.
    var serverGone: Bool {
        switch self {
        case .unreachable, .connectionLost: return true
        case .timedOut, .malformedResponse, .tls: return false
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let why): return why
        case .connectionLost(let why): return "connection lost: \(why)"
        case .timedOut: return "the server did not answer in time"
        case .malformedResponse(let why): return "the server sent a malformed answer: \(why)"
        case .tls(let failure): return failure.description
        }
    }
}
