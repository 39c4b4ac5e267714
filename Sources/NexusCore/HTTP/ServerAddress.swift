/// Where nexusd listens, parsed from a URL such as "http://127.0.0.1:8787" or
/// "https://chat.example.com".
public struct ServerAddress: Hashable, Sendable, CustomStringConvertible {
    /// https:// (TLS through the system's OpenSSL) rather than plain http://.
    public var isTLS: Bool
    public var host: String
    public var port: UInt16
    /// A path prefix for servers mounted below the root, without a trailing slash.
    public var basePath: String

    public static let defaultURL = "http://127.0.0.1:8787"

    public init(host: String, port: UInt16, basePath: String = "", isTLS: Bool = false) {
        self.isTLS = isTLS
        self.host = host
        self.port = port
        self.basePath = basePath
    }

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case unsupportedScheme(String)
        case invalid(String)
        /// A URL naming the API's own path, which nexusctl adds to every request.
        case apiPath(String, root: String)

        public var description: String {
            switch self {
            case .unsupportedScheme(let url):
                return "'\(url)' uses a scheme nexusctl can't speak; use https:// (or http:// on loopback)"
            case .invalid(let url):
                return "'\(url)' is not a server URL; expected something like http://127.0.0.1:8787"
            case .apiPath(let url, let root):
                return "'\(url)' ends in the API's path /v1, which nexusctl adds itself; use \(root)"
            }
        }
    }

    public init(parsing url: String) throws(ParseError) {
        var rest = Substring(url)
        var isTLS = false
        if rest.hasPrefix("http://") {
            rest = rest.dropFirst(7)
        } else if rest.hasPrefix("https://") {
            rest = rest.dropFirst(8)
            isTLS = true
        } else if rest.contains("://") {
            throw .unsupportedScheme(url)
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        var path = String(rest[slash...])
        while path.hasSuffix("/") { path.removeLast() }
        if path == "/v1" || path.hasSuffix("/v1") {
            throw .apiPath(url, root: String(url.prefix(url.count - rest[slash...].count)) + path.dropLast(3))
        }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalid(url) }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { throw .invalid(url) }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty, !host.contains(where: { $0 == "@" || $0 == " " }) else { throw .invalid(url) }
        var port: UInt16 = isTLS ? 443 : 80
        if let portText {
            guard let p = UInt16(portText), p > 0 else { throw .invalid(url) }
            port = p
        }
        self.init(host: String(host), port: port, basePath: path, isTLS: isTLS)
    }

    public var description: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(isTLS ? "https" : "http")://\(h):\(port)\(basePath)"
    }

    /// This machine itself: plain http:// to it exposes nothing to the network.
    var isLoopback: Bool {
        let h = host.lowercased()
        if h == "localhost" || h.hasSuffix(".localhost") || h == "::1" { return true }
        let octets = h.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}

extension ServerAddress {
    /// One URL, or several separated by commas: replicas of one service, which a client
    /// tries in order when one cannot be reached (see NexusAPI).
    public static func list(parsing text: String) throws(ParseError) -> [ServerAddress] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces() }
        guard !parts.contains(where: \.isEmpty) else { throw .invalid(text) }
        var addresses: [ServerAddress] = []
        for part in parts { addresses.append(try ServerAddress(parsing: part)) }
        return addresses
    }
}
