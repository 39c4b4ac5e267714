import ArgumentParser
import Foundation
import Logging
import NexusCore
import NexusServer
import NIOCore
import NIOPosix

/// nexusd: the Nexus sync server.
@main
struct Nexusd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nexusd",
        abstract: "The Nexus sync server.",
        // One line a paragraph: the help (and the man page made from it) wraps to the
        // reader's width, so a break here would leave short lines there.
        discussion: """
            Serves the /v1 HTTP API that nexusctl syncs with, on an embedded SQLite database, \
            or as one of several replicas on a PostgreSQL database (--db postgres://…).

            It prints "nexusd listening on http://HOST:PORT" on stdout once it accepts \
            connections, logs to stderr, and stops gracefully on SIGTERM or SIGINT.

            With --tls-cert and --tls-key it serves HTTPS itself (TLS 1.2 or newer), and prints \
            https:// instead. SIGHUP reads both files again (a certbot renewal): new connections \
            get the new certificate, open ones (held long polls) stay up, and a pair that does not \
            load is refused with a log line while the old one stays in use. Plain HTTP is the default.
            """,
        // With the commit when the build knew it (`make dist`, `make install`).
        version: BuildInfo.versionAndCommit)

    @Option(help: ArgumentHelp("Address to listen on; port 0 picks a free port.", valueName: "host:port"))
    var listen = "127.0.0.1:8787"

    @Option(help: ArgumentHelp(
        "SQLite database file (default: $XDG_DATA_HOME/nexusd/nexus.sqlite), or a postgres://user:password@host:5432/database URL for several replicas (see docs/deploy.md).",
        valueName: "path|url"))
    var db: String?

    @Option(help: ArgumentHelp(
        "Serve HTTPS with this PEM certificate chain (leaf first, then intermediates); needs --tls-key. SIGHUP reloads it.",
        valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert. SIGHUP reloads it.", valueName: "file"))
    var tlsKey: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(help: ArgumentHelp("How long a token from register or login works: seconds, or a number with s, m, h or d.", valueName: "duration"))
    var tokenTtl = "30d"

    @Option(help: ArgumentHelp("bcrypt cost for new password hashes (4 to 31).", visibility: .hidden))
    var bcryptCost: UInt8 = 10

    // API fuzzing asks sync for long waits at random; this keeps each answer quick.
    @Option(help: ArgumentHelp("Longest sync long poll, in seconds (0 to 60).", visibility: .hidden))
    var syncWaitCap: Int64 = 60

    func validate() throws {
        guard Self.parseListen(listen) != nil else {
            throw ValidationError("--listen takes host:port, such as 127.0.0.1:8787 or [::1]:0; got '\(listen)'")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        guard (4...31).contains(bcryptCost) else { throw ValidationError("--bcrypt-cost must be between 4 and 31") }
        guard let ttl = Self.parseDuration(tokenTtl), ttl > 0 else {
            throw ValidationError("--token-ttl takes a duration such as 3600, 90m, 12h or 30d; got '\(tokenTtl)'")
        }
        guard (0...60).contains(syncWaitCap) else { throw ValidationError("--sync-wait-cap must be between 0 and 60") }
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

    static func main() async {
        // Run Swift concurrency on NIO's event loop threads: a request then stays on one
        // thread instead of hopping between NIO's and the concurrency pool's.
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        // `make docs`: the man page, from the same declarations as --help.
        if Array(CommandLine.arguments.dropFirst()) == ["--generate-manual"] {
            print(manual(), terminator: "")
            return
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
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

    static func parseListen(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    func run() async throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        // Whatever nexusd creates is its own user's alone (docs/deploy.md, "Files").
        umask(0o077)
        let (host, port) = Self.parseListen(listen)!
        var limits = ServerLimits()
        limits.tokenTTLSeconds = Self.parseDuration(tokenTtl)!
        limits.syncWaitCapSeconds = syncWaitCap
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
        let app = try await buildApplication(config, onListening: { host, port in
            let shown = host.contains(":") ? "[\(host)]" : host
            // Unbuffered, so a supervisor or test reading the pipe sees it at once.
            FileHandle.standardOutput.write(Data("nexusd listening on \(scheme)://\(shown):\(port)\n".utf8))
        })
        try await app.runService()
    }
}


