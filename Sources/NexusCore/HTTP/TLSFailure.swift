/// How nexusctl's HTTPS is set up: whom to trust, where resumption tickets are kept, and
/// whether plain http:// may carry secrets to a host that is not loopback.
public struct TLSOptions {
    /// A PEM file of CA certificates to trust instead of the system's store (--cacert).
    public var caFile: String?
    /// Where TLS session tickets are kept (the profile's directory), so that the next
    /// process resumes instead of paying a full handshake. Nil keeps none.
    public var sessionDirectory: String?
    /// Lets a password or token travel over plain http:// to a host that is not loopback.
    public var allowPlainHTTP = false
    /// Told of every TLS handshake (the `NEXUS_DEBUG_TLS` report); the core never prints.
    public var onHandshake: ((TLSHandshake) -> Void)?

    public init(caFile: String? = nil, sessionDirectory: String? = nil, allowPlainHTTP: Bool = false) {
        self.caFile = caFile
        self.sessionDirectory = sessionDirectory
        self.allowPlainHTTP = allowPlainHTTP
    }
}

/// One completed handshake, as OpenSSL reports it.
public struct TLSHandshake: Sendable, Equatable {
    public var server: String
    public var version: String
    /// `SSL_session_reused`: the handshake resumed a saved session (no certificate exchange).
    public var resumed: Bool
}

/// Why an HTTPS connection was refused. Each names its cause; `hint` names the fix.
public enum TLSFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The certificate chains to no CA nexusctl trusts (self-signed, private CA).
    case unknownIssuer(server: String, detail: String)
    /// The certificate is past its end date (or before its start date).
    case expired(server: String, detail: String)
    /// The certificate is valid, but not for the host name or address nexusctl asked for.
    case wrongHost(server: String, host: String)
    /// Another verification failure (revoked, bad signature, wrong purpose...).
    case untrusted(server: String, detail: String)
    /// The handshake failed: no common protocol (below TLS 1.2), not TLS at all, or cut off.
    case handshake(server: String, detail: String)
    /// The --cacert file can't be read or holds no certificate.
    case caFile(path: String, detail: String)

    public var description: String {
        switch self {
        case .unknownIssuer(let server, let detail):
            return "can't verify the certificate of \(server): its issuer is unknown (\(detail))"
        case .expired(let server, let detail):
            return "the certificate of \(server) is not valid now (\(detail))"
        case .wrongHost(let server, let host):
            return "the certificate of \(server) is not for '\(host)' (no matching DNS or IP name in it)"
        case .untrusted(let server, let detail):
            return "the certificate of \(server) was refused: \(detail)"
        case .handshake(let server, let detail):
            return "the TLS handshake with \(server) failed: \(detail)"
        case .caFile(let path, let detail):
            return "can't use the CA file '\(path)': \(detail)"
        }
    }

    public var hint: String {
        switch self {
        case .unknownIssuer:
            return "for a private CA or a self-signed server, pass its CA certificate with --cacert FILE ($NEXUS_CACERT, or `cacert = FILE` in the config); nexusctl has no switch that turns verification off."
        case .expired:
            return "the server's certificate must be renewed (then `kill -HUP` nexusd, or reload the proxy); check this machine's clock too."
        case .wrongHost:
            return "use the host name the certificate was issued for in the server URL, or have the certificate reissued with this name in its subjectAltName."
        case .untrusted:
            return "the server needs a valid certificate; nexusctl has no switch that turns verification off."
        case .handshake:
            return "is the server speaking HTTPS (TLS 1.2 or newer) on that port? For a plain nexusd use http://."
        case .caFile:
            return "give --cacert (or $NEXUS_CACERT, or `cacert =`) a readable PEM file of CA certificates."
        }
    }
}
