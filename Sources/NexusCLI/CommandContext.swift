import NexusCore

/// What a running command gets from the runner: its parsed invocation, the output,
/// the profile, and (for commands that need one) the session and an API client.
public final class CommandContext {
    public let invocation: Invocation
    public let output: Output
    public let environment: [String: String]
    public let config: Config
    public let profile: Profile
    /// Arguments that were not valid UTF-8 (decoded with U+FFFD), with their bytes as given.
    public internal(set) var replacedArguments: [String: [UInt8]] = [:]
    /// Set by the runner for commands that require a session.
    public internal(set) var session: Session?
    private var client: NexusAPI?

    init(invocation: Invocation, output: Output, environment: [String: String], config: Config, profile: Profile) {
        self.invocation = invocation
        self.output = output
        self.environment = environment
        self.config = config
        self.profile = profile
    }

    public var terminal: any Terminal { output.terminal }
    public var arguments: [String] { invocation.arguments }

    /// --server, else $NEXUS_SERVER, else the profile's own server (from its login), else
    /// the config file's, else the default. Each may list several replicas, comma-separated.
    /// The profile's server beats the config file's because the account lives there: the
    /// config's `server =` is where a new profile logs in. --help, the man page and the
    /// README state this order, and NewcomerTests checks it.
    public func serverAddresses() throws(CLIError) -> [ServerAddress] {
        let urls = invocation[GlobalOptions.server] ?? environment["NEXUS_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
            ?? session?.server ?? config.server(profile: profile.name) ?? ServerAddress.defaultURL
        do {
            return try ServerAddress.list(parsing: urls)
        } catch {
            throw .usage(error.description)
        }
    }

    /// The server this command talks to (the first of several until one fails).
    public func serverAddress() throws(CLIError) -> ServerAddress {
        if let client { return client.address }
        return try serverAddresses()[0]
    }

    /// True once the server has answered this command successfully.
    var reachedServer: Bool { client?.hasReachedServer ?? false }

    /// A client for the server, carrying the session's token when there is one.
    public func api() throws(CLIError) -> NexusAPI {
        if let client { return client }
        let made = NexusAPI(addresses: try serverAddresses(), token: session?.token, tls: tlsOptions())
        client = made
        return made
    }

    /// --cacert, else $NEXUS_CACERT, else the config's for this profile, else the copy the
    /// profile kept when it logged in, else the config's for all; tickets under the profile; and the
    /// `NEXUS_DEBUG_TLS=1` report of each handshake on stderr (resumed or full), for tests
    /// and for people checking that resumption works.
    func tlsOptions() -> TLSOptions {
        var options = TLSOptions(
            caFile: invocation[GlobalOptions.cacert] ?? environment["NEXUS_CACERT"].flatMap { $0.isEmpty ? nil : $0 } ?? config.profiles[profile.name]?.cacert ?? profile.savedCA ?? config.cacert,
            sessionDirectory: profile.directory,
            allowPlainHTTP: invocation[GlobalOptions.allowPlainHTTP] || config.allowPlainHTTP)
        if environment["NEXUS_DEBUG_TLS"] == "1" {
            let terminal = output.terminal
            options.onHandshake = { handshake in
                terminal.writeErr("tls: \(handshake.server) \(handshake.version) \(handshake.resumed ? "resumed" : "full handshake")\n")
            }
        }
        return options
    }

    /// The session, which the runner has loaded for commands that require one.
    public func requireSession() throws(CLIError) -> Session {
        guard let session else {
            throw CLIError(.auth, "not logged in (profile '\(profile.name)')", hint: "run `nexusctl login <email>`, or `nexusctl register <email> --name NAME` for a new account; a script can give an access token in $NEXUS_TOKEN.")
        }
        return session
    }

    /// Runs one API call, turning its failure into the usual error for this server.
    public func call<T>(_ body: (NexusAPI) throws(APIError) -> T) throws(CLIError) -> T {
        let client = try api()
        do {
            return try body(client)
        } catch {
            throw failure(error)
        }
    }

    /// Turns an API failure into the usual error for this server, worded for an access
    /// token when the session is one (its fix is a new token, not a password login).
    public func failure(_ error: APIError) -> CLIError {
        failure(error, token: session?.token)
    }

    func failure(_ error: APIError, token: String?) -> CLIError {
        if let token, token.hasPrefix(Self.accessTokenPrefix) || tokenFromEnvironment, case .server(let status, let code, let message, _) = error,
           status == 401 || status == 403
        {
            let source = tokenFromEnvironment ? "$NEXUS_TOKEN" : "the access token of profile '\(profile.name)'"
            let fix = "make a new token with `nexusctl token create NAME` (its owner, logged in with a password), then `nexusctl login --token-stdin` or $NEXUS_TOKEN."
            switch (status, code) {
            case (401, "token_expired"): return CLIError(.auth, "\(source) has expired", hint: fix)
            case (401, _): return CLIError(.auth, "\(source) was refused: revoked, or not a token of this server", hint: fix)
            default:
                return CLIError(.auth, "\(source) may not do this: \(message)",
                                hint: "use a token with the scope and conversations this needs (`nexusctl token create NAME --scope … --conversation …`).")
            }
        }
        return CLIError(error, server: (try? serverAddress()) ?? ServerAddress(host: "?", port: 0))
    }

    /// What to do when the server refused the credentials of a delivery.
    var loginAgainHint: String {
        guard usesAccessToken else {
            return "run `nexusctl login <email>`, then `nexusctl retry --all`."
        }
        let source = tokenFromEnvironment ? "$NEXUS_TOKEN" : "the profile's access token"
        return "\(source) was refused (expired, revoked or out of scope): make a new one with `nexusctl token create`, then `nexusctl retry --all`."
    }

    /// Whatever $NEXUS_TOKEN holds, it is what the server refuses, so its fix is a token's.
    var usesAccessToken: Bool { tokenFromEnvironment || session?.token.hasPrefix(Self.accessTokenPrefix) == true }

    /// Access tokens start with this; sessions from login don't (see nexusd's Tokens).
    static let accessTokenPrefix = "nxt_"

    /// True when the session is $NEXUS_TOKEN's, made for this command and saved nowhere.
    var tokenFromEnvironment = false
    private var fetchedUser: User?

    /// The caller. A session from login knows it; $NEXUS_TOKEN's asks the server once.
    public func me() throws(CLIError) -> User {
        let session = try requireSession()
        guard tokenFromEnvironment else { return session.user }
        if let fetchedUser { return fetchedUser }
        let user = try call { api throws(APIError) in try api.me() }
        fetchedUser = user
        self.session?.user = user
        return user
    }

    /// $NEXUS_TOKEN as this command's session: the server is --server, $NEXUS_SERVER, the
    /// profile's saved one, or the config's, as for a login; nothing is written.
    func useEnvironmentToken(_ token: String) {
        let saved = try? profile.loadSession()
        let server = saved?.server ?? config.server(profile: profile.name) ?? ServerAddress.defaultURL
        session = Session(server: server, token: token, user: User(id: 0, email: "", displayName: ""), createdAt: .now())
        tokenFromEnvironment = true
    }

    /// Saves the session's new expiry when the server stated one that differs from the
    /// saved one, so the file writes only when the server slid it (about once an hour).
    /// Not after a logout or another login: only if the file still holds this token.
    func saveRenewedExpiry() {
        guard !tokenFromEnvironment, let stated = client?.sessionExpiresAt, var session, session.expiresAt != stated,
              var saved = try? profile.loadSession(), saved.token == session.token
        else { return }
        session.expiresAt = stated
        self.session = session
        saved.expiresAt = stated
        // Best effort: the command's own work is done, and the next answer states it again.
        try? profile.saveSession(saved)
    }

    /// Saves the attachment limit the server stated (the last one seen), so `send --file`
    /// refuses a file too large before it queues it. Best effort, like the expiry.
    func saveServerLimits() {
        guard let stated = client?.maxAttachmentBytes else { return }
        try? profile.saveMaxAttachment(stated)
    }

    /// An integer option, checked against a range.
    public func intOption(_ option: Value, default fallback: Int, range: ClosedRange<Int>) throws(CLIError) -> Int {
        guard let text = invocation[option] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw .usage("--\(option.spec.name) takes a whole number from \(range.lowerBound) to \(range.upperBound); got '\(text)'")
        }
        return value
    }
}
