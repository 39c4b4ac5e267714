import ArgumentParser
import Foundation
import Logging
import NexusWire
import NexusServer
import NIOCore
import NIOPosix

/// nexusd: the Nexus sync server. A library, so that nexusd-bench runs the same command
/// with its routes added (`start(_:extensions:)`; not ArgumentParser's `main`, which
/// would run an asynchronous command only with an availability annotation).
package struct Nexusd: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "nexusd",
        abstract: "The Nexus sync server.",
        // One line a paragraph: the help (and the man page made from it) wraps to the
        // reader's width, so a break here would leave short lines there.
        discussion: """
            Serves the /v1 HTTP API that nexusctl syncs with, on an embedded SQLite database, \
            or as one of several replicas on a PostgreSQL database (--db postgres://…).

            It prints "nexusd listening on http://HOST:PORT" on stdout once it accepts \
            connections, logs to stderr (at info, a line a request: method, route, status, time and user id), \
            and stops gracefully on SIGTERM or SIGINT, with a last line saying so. An address already in use \
            stops it at once with exit 1.

            With --tls-cert and --tls-key it serves HTTPS itself (TLS 1.2 or newer), and prints \
            https:// instead. SIGHUP reads both files again (a certbot renewal): new connections \
            get the new certificate, open ones (held long polls) stay up, and a pair that does not \
            load is refused with a log line while the old one stays in use. Plain HTTP is the default.
            """,
        // The same form as nexusctl's: name, version, commit.
        version: "nexusd \(BuildInfo.versionAndCommit)")

    @Option(help: ArgumentHelp("Address to listen on; port 0 picks a free port.", valueName: "host:port"))
    var listen = "127.0.0.1:8787"

    @Option(help: ArgumentHelp(
        "SQLite database file (default: $XDG_DATA_HOME/nexusd/nexus.sqlite, whose folder nexusd creates; any other folder must exist), or a postgres://user:password@host:5432/database URL for several replicas; several hosts, host1:5432,host2:5432, for a failover cluster (see docs/deploy.md).",
        valueName: "path|url"))
    var db: String?

    @Option(help: ArgumentHelp(
        "Serve HTTPS with this PEM certificate chain (leaf first, then intermediates); needs --tls-key. SIGHUP reloads it.",
        valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert. SIGHUP reloads it.", valueName: "file"))
    var tlsKey: String?

    @Option(help: "Log level: trace, debug, info (a line a request), notice, warning, error or critical.")
    var logLevel = "info"

    @Option(help: ArgumentHelp(
        "A session (from register or login) lapses after this long unused; each use extends it: seconds, or a number with s, m, h or d.",
        valueName: "duration"))
    var sessionIdle = "30d"

    @Option(help: ArgumentHelp(
        "A session lapses this long after its login however much it is used, sessions made before the limit was set included (default: no limit).",
        valueName: "duration"))
    var sessionMaxAge: String?

    // The name --session-idle had before sessions slid.
    @Option(help: ArgumentHelp("Old name of --session-idle.", visibility: .hidden))
    var tokenTtl: String?

    // Integration tests move nexusd's clock (session expiry, presence) by writing a number
    // of seconds into this file; it is read at each look at the clock.
    @Option(help: ArgumentHelp("Seconds to add to the clock, read from this file at each use (tests).", visibility: .hidden))
    var clockOffsetFile: String?

    @Option(help: ArgumentHelp("Largest attachment taken: bytes, or a number with KiB, MiB or GiB.", valueName: "size"))
    var maxAttachment = "100MiB"

    @Option(help: ArgumentHelp(
        "Most members of one group, its creator included (3 to 100000); a message to a group wakes every member's long polls.",
        valueName: "n"))
    var maxGroupMembers = 256

    @Option(help: ArgumentHelp(
        "Most distinct reactions on one message (1 to 1000); a change event carries its message, reactions and all.", valueName: "n"))
    var maxReactionsPerMessage = 50

    @Option(help: ArgumentHelp("Most reactions one member may add to one message (1 to 1000).", valueName: "n"))
    var maxReactionsPerMember = 20

    @Option(help: ArgumentHelp(
        "Most live outgoing hooks in one conversation (1 to 1000); each message is POSTed once per hook.", valueName: "n"))
    var maxOutgoingHooks = 20

    @Option(help: ArgumentHelp("Most live outgoing hooks of one member in one conversation (1 to 1000).", valueName: "n"))
    var maxOutgoingHooksPerMember = 5

    // Tests shrink the day after which uploads no message refers to are deleted.
    @Option(help: ArgumentHelp("Age at which uploads no message refers to are deleted (default 1d).", visibility: .hidden))
    var uploadCleanupAfter = "1d"

    // Tests hold new messages out of the search index (SQLite) to search them as they wait.
    @Option(help: ArgumentHelp("Milliseconds the search indexer rests when idle (default 250).", visibility: .hidden))
    var searchIndexIdleMs: Int64 = 250

    @Option(help: ArgumentHelp("bcrypt cost for new password hashes (4 to 31).", visibility: .hidden))
    var bcryptCost: UInt8 = 10

    // API fuzzing asks sync for long waits at random; this keeps each answer quick.
    @Option(help: ArgumentHelp("Longest sync long poll, in seconds (0 to 60).", visibility: .hidden))
    var syncWaitCap: Int64 = 60

    package init() {}

    package func validate() throws {
        guard Self.parseListen(listen) != nil else {
            throw ValidationError("--listen takes host:port, such as 127.0.0.1:8787 or [::1]:0; got '\(listen)'")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        guard (4...31).contains(bcryptCost) else { throw ValidationError("--bcrypt-cost must be between 4 and 31") }
        guard let idle = Self.parseDuration(tokenTtl ?? sessionIdle), idle > 0 else {
            throw ValidationError("--session-idle takes a duration such as 3600, 90m, 12h or 30d; got '\(tokenTtl ?? sessionIdle)'")
        }
        if let sessionMaxAge {
            guard let maxAge = Self.parseDuration(sessionMaxAge), maxAge > 0 else {
                throw ValidationError("--session-max-age takes a duration such as 90d or 12h; got '\(sessionMaxAge)'")
            }
            guard maxAge >= idle else {
                throw ValidationError("--session-max-age (\(sessionMaxAge)) is shorter than --session-idle (\(tokenTtl ?? sessionIdle)); make it at least as long")
            }
        }
        guard (0...60).contains(syncWaitCap) else { throw ValidationError("--sync-wait-cap must be between 0 and 60") }
        guard Self.parseSize(maxAttachment) != nil else {
            throw ValidationError("--max-attachment takes a size such as 104857600, 100MiB or 2GiB; got '\(maxAttachment)'")
        }
        guard (3...100_000).contains(maxGroupMembers) else {
            throw ValidationError("--max-group-members must be between 3 and 100000 (a group is its creator and two or more others); got \(maxGroupMembers)")
        }
        for (option, value) in [
            ("--max-reactions-per-message", maxReactionsPerMessage), ("--max-reactions-per-member", maxReactionsPerMember),
            ("--max-outgoing-hooks", maxOutgoingHooks), ("--max-outgoing-hooks-per-member", maxOutgoingHooksPerMember),
        ] where !(1...1000).contains(value) {
            throw ValidationError("\(option) must be between 1 and 1000; got \(value)")
        }
        guard let cleanup = Self.parseDuration(uploadCleanupAfter), cleanup > 0 else {
            throw ValidationError("--upload-cleanup-after takes a duration such as 3600, 90m, 12h or 1d; got '\(uploadCleanupAfter)'")
        }
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together: give both (PEM files) to serve HTTPS, or neither for plain HTTP")
        }
    }

    /// Seconds from "3600", "3600s", "90m", "12h" or "30d".
    static func parseDuration(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let last = text.last else { return nil }
        let (digits, unit) = units[last].map { (text.dropLast(), $0) } ?? (text[...], 1)
        guard let value = Int64(digits), value >= 0 else { return nil }
        let (seconds, overflow) = value.multipliedReportingOverflow(by: unit)
        return overflow ? nil : seconds
    }

    /// `arguments`: the command line without the program's name; `extensions`: what the
    /// program adds to the application (nexusd adds nothing).
    package static func start(_ arguments: [String] = Array(CommandLine.arguments.dropFirst()), extensions: [any ServerExtension] = []) async {
        // Run Swift concurrency on NIO's event loop threads: a request then stays on one
        // thread instead of hopping between NIO's and the concurrency pool's.
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        // `make docs`: the man page, from the same declarations as --help.
        if arguments == ["--generate-manual"] {
            print(manual(), terminator: "")
            return
        }
        do {
            var command = try parseAsRoot(arguments)
            if let nexusd = command as? Nexusd {
                try await nexusd.run(extensions: extensions)
            } else {
                try command.run()
            }
        } catch let error as AddressInUse {
            // Said as it is, not as ArgumentParser's "Error: …" of a command-line mistake.
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            Foundation.exit(1)
        } catch {
            exit(withError: error)
        }
    }

    /// SIGHUP reloads the certificate and key; a broken pair is refused and logged.
    static func reloadOnHangUp(_ certificates: TLSCertificates) -> any DispatchSourceSignal {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP)
        let logger = Logger(label: "nexusd")
        source.setEventHandler {
            do {
                try certificates.reload()
                logger.notice("SIGHUP: reloaded the TLS certificate and key; new connections use them", metadata: [
                    "cert": .string(certificates.certificatePath)])
            } catch {
                logger.error("SIGHUP: refused the new TLS certificate and key, still serving the old ones: \(error)", metadata: [
                    "cert": .string(certificates.certificatePath), "key": .string(certificates.keyPath)])
            }
        }
        source.resume()
        return source
    }

    /// `1048576`, `512KiB`, `100MiB`, `2GiB` (also K, M, G, KB, MB, GB as powers of 1024).
    static func parseSize(_ text: String) -> Int64? {
        let units: [(String, Int64)] = [
            ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("KB", 1 << 10), ("MB", 1 << 20), ("GB", 1 << 30),
            ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("B", 1),
        ]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            guard let n = Int64(text.dropLast(suffix.count)), n >= 0, n <= Int64.max / factor else { return nil }
            return n * factor
        }
        guard let n = Int64(text), n >= 0 else { return nil }
        return n
    }

    static func parseListen(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    package func run() async throws { try await run(extensions: []) }

    func run(extensions: [any ServerExtension]) async throws {
        LoggingSystem.bootstrap(LogLines.standardError)
        // Whatever nexusd creates is its own user's alone (docs/deploy.md, "Files").
        umask(0o077)
        let (host, port) = Self.parseListen(listen)!
        try await Self.checkAddressFree(host: host, port: port)
        var limits = ServerLimits()
        limits.tokenTTLSeconds = Self.parseDuration(tokenTtl ?? sessionIdle)!
        limits.sessionMaxAgeSeconds = sessionMaxAge.flatMap(Self.parseDuration)
        limits.syncWaitCapSeconds = syncWaitCap
        limits.maxAttachmentBytes = Self.parseSize(maxAttachment)!
        limits.maxGroupMembers = maxGroupMembers
        limits.maxReactionsPerMessage = maxReactionsPerMessage
        limits.maxReactionsPerMemberPerMessage = maxReactionsPerMember
        limits.maxOutgoingHooksPerConversation = maxOutgoingHooks
        limits.maxOutgoingHooksPerMemberPerConversation = maxOutgoingHooksPerMember
        limits.unreferencedUploadSeconds = Self.parseDuration(uploadCleanupAfter)!
        limits.searchIndexIdleMilliseconds = max(1, searchIndexIdleMs)
        var config = ServerConfig(
            host: host, port: port, databasePath: db ?? ServerConfig.defaultDatabasePath(),
            logLevel: Logger.Level(rawValue: logLevel)!, bcryptCost: bcryptCost, limits: limits)
        if let tlsCert, let tlsKey {
            do {
                config.tls = try TLSCertificates(certificatePath: tlsCert, keyPath: tlsKey)
            } catch {
                throw ValidationError("can't serve HTTPS with --tls-cert \(tlsCert) --tls-key \(tlsKey): \(error)")
            }
        }
        let reloader = config.tls.map(Self.reloadOnHangUp)
        defer { reloader?.cancel() }
        let scheme = config.tls == nil ? "http" : "https"
        config.dataFolder = (ServerConfig.defaultDatabasePath() as NSString).deletingLastPathComponent
        config.clockOffsetFile = clockOffsetFile
        config.extensions = extensions
        let app = try await buildApplication(config, onListening: { host, port in
            let shown = host.contains(":") ? "[\(host)]" : host
            // Unbuffered, so a supervisor or test reading the pipe sees it at once.
            FileHandle.standardOutput.write(Data("nexusd listening on \(scheme)://\(shown):\(port)\n".utf8))
        })
        do {
            try await app.runService()
        } catch where Self.isAddressInUse(error) {
            // Taken between the check and the server's own bind.
            throw AddressInUse(host: host, port: port)
        }
        var logger = Logger(label: "nexusd")
        logger.logLevel = config.logLevel
        logger.notice("nexusd stopped: the requests under way were answered and the database closed")
    }
}


