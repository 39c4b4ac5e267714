import Hummingbird
import Logging
import NIOHTTP1
import Synchronization

/// HTTP that the parser refused: in a request's body once it was under way (a bad chunk
/// size or chunk end, a transfer coding other than chunked), answered by its route; in a
/// request line or headers, before any route, by ParserErrorAnswer. The client's fault,
/// so a 400, and the connection is closed: the parser can't find where the next request
/// would start. Anyone can send it without a token, so it is no server error in the log:
/// a debug line at most every `interval`, with how many came since the last one.
enum MalformedHTTP {
    static let interval: Duration = .seconds(10)
    private static let lines = Mutex<(last: ContinuousClock.Instant?, since: Int)>((nil, 0))

    static func answer(_ error: HTTPParserError, logger: Logger) -> APIError {
        note(error, logger: logger)
        return APIError(
            status: .badRequest, code: "malformed_request",
            message: "The request is not valid HTTP/1.1 (\(error)); the connection is closed. Send it again well formed.",
            headers: [.connection: "close"])
    }

    private static func note(_ error: HTTPParserError, logger: Logger) {
        let now = ContinuousClock.now
        let since: Int? = lines.withLock { state in
            state.since += 1
            if let last = state.last, now - last < interval { return nil }
            defer { state = (now, 0) }
            return state.since
        }
        guard let since else { return }
        logger.debug("malformed HTTP refused with 400: \(error) (\(since) such request(s) since the last line)")
    }
}
