import Foundation
import PostgresNIO

/// Where the PostgreSQL database is, from a libpq-style URL:
/// `postgres://user:password@host:port/database?sslmode=disable|prefer|require`,
/// `postgres://user@/database?host=/run/postgresql` for a Unix socket, or several hosts
/// for a cluster with failover, `postgres://user@h1:5432,h2:5432/database?target_session_attrs=read-write`,
/// of which nexusd uses whichever is the writable primary (PostgresPrimary).
struct PostgresURL: Sendable {
    enum Endpoint: Sendable, Equatable, CustomStringConvertible {
        case tcp(host: String, port: Int)
        case socket(path: String)

        var description: String {
            switch self {
            case .tcp(let host, let port): return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            case .socket(let path): return path
            }
        }
    }

    enum TLSMode: String, Sendable {
        case disable, prefer, require
    }

    /// One, or several in the order given: the candidates for the primary.
    var endpoints: [Endpoint]
    var endpoint: Endpoint { endpoints[0] }
    var username: String
    var password: String?
    var database: String?
    var tls: TLSMode

    static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    init(_ text: String) throws {
        let (single, hosts) = try Self.splitHosts(text)
        guard Self.isPostgres(text), let url = URLComponents(string: single) else {
            throw Invalid(description: "'\(Self.redacted(text))' is not a PostgreSQL URL; expected postgres://user:password@host:5432/database")
        }
        let query = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        username = url.user.flatMap { $0.removingPercentEncoding } ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        password = url.password.flatMap { $0.removingPercentEncoding }
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        database = path.isEmpty ? nil : path.removingPercentEncoding
        if let socketFolder = query["host"], socketFolder.hasPrefix("/") {
            let port = url.port ?? 5432
            endpoints = [.socket(path: "\(socketFolder)/.s.PGSQL.\(port)")]
        } else if hosts.count > 1 {
            endpoints = hosts
        } else {
            endpoints = [.tcp(host: url.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1", port: url.port ?? 5432)]
        }
        guard let mode = TLSMode(rawValue: query["sslmode"] ?? "prefer") else {
            throw Invalid(description: "sslmode must be disable, prefer or require; got '\(query["sslmode"] ?? "")'")
        }
        tls = mode
        // nexusd writes, so only a writable primary will do; say so rather than ignore a wish for a standby.
        if let attrs = query["target_session_attrs"], !["read-write", "primary", "any"].contains(attrs) {
            throw Invalid(description: "target_session_attrs must be read-write (nexusd writes, so it always looks for the primary); got '\(attrs)'")
        }
    }

    /// The URL with only its first host, for URLComponents, and every host of a
    /// comma-separated list (`h1:5432,[::1]:5433,h3`), which URLComponents cannot parse.
    private static func splitHosts(_ text: String) throws -> (String, [Endpoint]) {
        guard let scheme = text.range(of: "://") else { return (text, []) }
        let rest = text[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        let list = authority[hostStart...]
        guard list.contains(",") else { return (text, []) }
        var endpoints: [Endpoint] = []
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
            var host = Substring(item)
            var port = 5432
            if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
                let after = host[host.index(after: close)...]
                if after.hasPrefix(":") {
                    guard let p = Int(after.dropFirst()) else { throw Invalid(description: "bad port in PostgreSQL host '\(item)'") }
                    port = p
                }
                host = host[host.index(after: host.startIndex)..<close]
            } else if let colon = host.lastIndex(of: ":") {
                guard let p = Int(host[host.index(after: colon)...]) else {
                    throw Invalid(description: "bad port in PostgreSQL host '\(item)'; expected host:port, for example db1:5432")
                }
                port = p
                host = host[..<colon]
            }
            guard !host.isEmpty else { throw Invalid(description: "empty host in the PostgreSQL host list '\(list)'") }
            endpoints.append(.tcp(host: String(host), port: port))
        }
        let first = String(list.split(separator: ",")[0])
        return (String(text[..<hostStart]) + first + String(text[authorityEnd...]), endpoints)
    }

    /// The URL with its password replaced, for logs and errors.
    static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let rest = text[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else { return text }
        return String(text[..<rest.index(after: colon)]) + "xxx" + String(text[at...])
    }

    func clientConfiguration(maxConnections: Int, endpoint: Endpoint? = nil) -> PostgresClient.Configuration {
        var config: PostgresClient.Configuration
        switch endpoint ?? self.endpoint {
        case .tcp(let host, let port):
            let tls: PostgresClient.Configuration.TLS
            switch self.tls {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(.makeClientConfiguration())
            case .require: tls = .require(.makeClientConfiguration())
            }
            config = .init(host: host, port: port, username: username, password: password, database: database, tls: tls)
        case .socket(let path):
            config = .init(unixSocketPath: path, username: username, password: password, database: database)
        }
        config.options.maximumConnections = maxConnections
        // Kept open through idle time, so that the first query after a quiet minute does not
        // connect first. PostgresNIO asks for fewer than the maximum (Options.minimumConnections).
        config.options.minimumConnections = min(2, maxConnections - 1)
        // Named, so that an operator can tell them apart from the sends' (SendsConnection) in pg_stat_activity.
        config.options.additionalStartupParameters = [("application_name", "nexusd")]
        return config
    }
}
