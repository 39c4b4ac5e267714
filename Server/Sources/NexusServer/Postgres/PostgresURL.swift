import Foundation
import PostgresNIO

/// Where the PostgreSQL database is, from a libpq-style URL:
/// `postgres://user:password@host:port/database?sslmode=disable|prefer|require`,
/// or `postgres://user@/database?host=/run/postgresql` for a Unix socket.
struct PostgresURL: Sendable {
    enum Endpoint: Sendable {
        case tcp(host: String, port: Int)
        case socket(path: String)
    }

    enum TLSMode: String, Sendable {
        case disable, prefer, require
    }

    var endpoint: Endpoint
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
        guard Self.isPostgres(text), let url = URLComponents(string: text) else {
            throw Invalid(description: "'\(Self.redacted(text))' is not a PostgreSQL URL; expected postgres://user:password@host:5432/database")
        }
        let query = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        username = url.user.flatMap { $0.removingPercentEncoding } ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        password = url.password.flatMap { $0.removingPercentEncoding }
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        database = path.isEmpty ? nil : path.removingPercentEncoding
        if let socketFolder = query["host"], socketFolder.hasPrefix("/") {
            let port = url.port ?? 5432
            endpoint = .socket(path: "\(socketFolder)/.s.PGSQL.\(port)")
        } else {
            endpoint = .tcp(host: url.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1", port: url.port ?? 5432)
        }
        guard let mode = TLSMode(rawValue: query["sslmode"] ?? "prefer") else {
            throw Invalid(description: "sslmode must be disable, prefer or require; got '\(query["sslmode"] ?? "")'")
        }
        tls = mode
    }

    /// The URL with its password replaced, for logs and errors.
    static func redacted(_ text: String) -> String {
        guard var url = URLComponents(string: text), url.password != nil else { return text }
        url.password = "xxx"
        return url.string ?? "postgres://…"
    }

    func clientConfiguration(maxConnections: Int) -> PostgresClient.Configuration {
        var config: PostgresClient.Configuration
        switch endpoint {
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
        config.options.minimumConnections = 2
        return config
    }
}
