import NexusCore

/// What a running command gets from the runner: its parsed invocation, the output,
/// the profile, and (for commands that need one) the session and an API client.
public final class CommandContext {
    public let invocation: Invocation
    public let output: Output
    public let environment: [String: String]
    public let config: Config
    public let profile: Profile
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
        let urls = invocation.value("server") ?? environment["NEXUS_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
            ?? session?.server ?? config.server ?? ServerAddress.defaultURL
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

    /// --cacert, else $NEXUS_CACERT, else the config's; tickets under the profile; and the
    /// `NEXUS_DEBUG_TLS=1` report of each handshake on stderr (resumed or full), for tests
    /// and for people checking that resumption works.
    func tlsOptions() -> TLSOptions {
        var options = TLSOptions(
            caFile: invocation.value("cacert") ?? environment["NEXUS_CACERT"].flatMap { $0.isEmpty ? nil : $0 } ?? config.cacert,
            sessionDirectory: profile.directory,
            allowPlainHTTP: invocation.flag("allow-plain-http") || config.allowPlainHTTP)
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
            throw CLIError(.auth, "not logged in (profile '\(profile.name)')", hint: "run `nexusctl login <email>` first.")
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

    /// Turns an API failure into the usual error for this server.
    public func failure(_ error: APIError) -> CLIError {
        CLIError(error, server: (try? serverAddress()) ?? ServerAddress(host: "?", port: 0))
    }

    /// An integer option, checked against a range.
    public func intOption(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws(CLIError) -> Int {
        guard let text = invocation.value(name) else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw .usage("--\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound); got '\(text)'")
        }
        return value
    }
}
