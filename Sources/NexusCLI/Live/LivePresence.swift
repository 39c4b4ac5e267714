import NexusCore

/// A long-running command (`tail -f`, `convos -f`, `send --each-line`) keeps its user
/// online while it runs: it names itself to the server on every request (the
/// `Nexus-Presence` header), and says goodbye on a clean exit (SIGINT, SIGTERM, SIGHUP,
/// the end of its input) so its user goes offline at once, not after the server's 5 s grace.
enum LivePresence {
    /// Names this process on every request from now on, and arranges the goodbye.
    static func start(_ context: CommandContext) throws(CLIError) {
        let api = try context.api()
        guard api.presenceClient == nil else { return }
        let client = newClientName()
        api.presenceClient = client
        let addresses = api.addresses, token = api.token, tls = api.tls
        TerminationGuard.install()
        TerminationGuard.setFarewell {
            // A connection of its own: the command's may be in the middle of a long poll.
            let goodbye = NexusAPI(addresses: addresses, token: token, tls: tls)
            // Named too: a request without the name would count as a one-off, online for 60 s.
            goodbye.presenceClient = client
            try? goodbye.leave(presenceClient: client)
        }
    }

    /// 16 random hex digits: distinct for each process of the user.
    static func newClientName() -> String {
        let hex = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
