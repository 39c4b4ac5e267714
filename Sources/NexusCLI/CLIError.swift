import NexusCore

/// A failure to report: what went wrong, the fix, and the exit code.
public struct CLIError: Error, Equatable, Sendable {
    public var code: ExitCode
    public var message: String
    public var hint: String?
    /// The message and hint are nexusctl's own words, with nothing others wrote, so they are
    /// printed as written: escaping would double the backslash of a command to copy.
    public var verbatim = false

    public init(_ code: ExitCode, _ message: String, hint: String? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
    }

    /// Text that can't be sent (empty, with a NUL, too long): a usage error whose fix, such
    /// as `tr -d '\000'`, must copy as written.
    static func badText(_ problem: String, hint: String? = nil) -> CLIError {
        var error = CLIError.usage(problem, hint: hint)
        error.verbatim = true
        return error
    }

    public static func usage(_ message: String, hint: String? = nil) -> CLIError {
        CLIError(.usage, message, hint: hint)
    }

    public init(_ error: ParseError) {
        self.init(.usage, error.message, hint: error.hint)
    }

    public init(_ error: StoreError) {
        if let full = error.queueFull {
            self.init(
                .store, "Offline queue is full: \(full.open) message(s) wait in the outbox (the limit is \(full.limit)); nothing was queued",
                hint: "deliver them with `nexusctl queue flush`, drop what is not needed with `nexusctl queue drop LOCALID`, or raise `queue-limit` in the config file.")
            return
        }
        self.init(.store, error.description)
    }

    static let plainHTTPHint =
        "use https:// for that server; over a private link you trust, pass --allow-plain-http (or put `allow-plain-http = yes` in the config file)."

    /// The usual reading of an API failure; commands with their own wording catch first.
    public init(_ error: APIError, server: ServerAddress) {
        switch error {
        case .unreachable(let why):
            self.init(.unavailable, why, hint: "is nexusd running there? Choose another server with --server or $NEXUS_SERVER.")
        case .interrupted(let why):
            // A TLS port that hears plain HTTP hangs up without a byte: say what fixes that.
            var tls = server
            tls.isTLS = true
            let hint = server.isTLS || !why.hasSuffix(HTTPClient.closedUnanswered) ? "try again; nothing was lost."
                : "if that port speaks HTTPS, use \(tls); otherwise try again: nothing was lost."
            self.init(.unavailable, why, hint: hint)
        case .server(401, "token_expired", _, _):
            self.init(.auth, "session expired", hint: "run `nexusctl login <email>` for a new one.")
        case .server(401, _, let message, _), .server(403, _, let message, _):
            self.init(.auth, message, hint: "log in with `nexusctl login <email>`.")
        case .server(404, _, let message, _):
            self.init(.notFound, message)
        case .server(503, "storage_full", _, let retryAfter):
            self.init(.unavailable, "the server at \(server) is out of storage",
                      hint: "nothing was lost; try again later" + (retryAfter.map { " (it asks to wait \($0) s)" } ?? "") + ".")
        case .server(429, _, let message, let retryAfter):
            self.init(.unavailable, message, hint: retryAfter.map { "the server asks to wait \($0) s (Retry-After); try again then." })
        case .server(let status, _, let message, _) where status >= 500:
            self.init(.server, "the server at \(server) failed: \(message)")
        case .server(_, _, let message, _):
            self.init(.failure, message)
        case .badResponse(let why):
            self.init(.server, why, hint: "is \(server) a nexusd of a matching version?")
        case .tls(let failure):
            self.init(.tls, failure.description, hint: failure.hint)
        case .plainHTTPRefused:
            self.init(.tls, error.description, hint: Self.plainHTTPHint)
        }
    }
}
