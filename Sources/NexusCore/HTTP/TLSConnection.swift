import LibC
import COpenSSL

/// What one non-blocking read or write on a connection did.
enum SocketIO {
    case done(Int)
    case endOfStream
    /// Not ready: wait in poll for these events, then try again.
    case wait(Int16)
    case failed(String)
}

/// One TLS client connection over a connected non-blocking socket, through the system's
/// OpenSSL: verification against the system's trust store (or --cacert), the host name
/// checked by OpenSSL against the certificate's DNS and IP names, TLS 1.2 at least, and
/// the session saved under the profile so the next process resumes instead of paying a
/// full handshake.
final class TLSConnection {
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let server: String
    private let sessionPath: String?
    private let caFile: String?
    private var sessionSaved = false

    /// A context per connection; the trust anchors are read only if a chain is verified.
    static func makeContext(_ options: TLSOptions) throws(TLSFailure) -> OpaquePointer {
        var why = [CChar](repeating: 0, count: 256)
        guard nexus_openssl_load(&why, why.count) == 0 else {
            throw .handshake(server: "-", detail: "the system's OpenSSL could not be loaded (\(String(cBuffer: why))); install Debian's libssl3")
        }
        guard let ctx = nexus_openssl_take_context() ?? nexus_SSL_CTX_new(nexus_TLS_client_method()) else {
            throw .handshake(server: "-", detail: "OpenSSL could not make a TLS context")
        }
        _ = nexus_SSL_CTX_set_min_proto_version(ctx, Int32(TLS1_2_VERSION))
        _ = nexus_SSL_CTX_set_partial_writes(ctx)
        _ = nexus_SSL_CTX_set_session_cache_mode(ctx, Int(SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE))
        nexus_SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        if let file = options.caFile {
            guard access(file, R_OK) == 0 else {
                nexus_SSL_CTX_free(ctx)
                throw .caFile(path: file, detail: String(cString: strerror(errno)).lowercased())
            }
        }
        guard nexus_SSL_CTX_defer_trust(ctx, options.caFile) == 1 else {
            nexus_SSL_CTX_free(ctx)
            throw .handshake(server: "-", detail: "OpenSSL could not make a TLS context")
        }
        return ctx
    }

    /// Makes the handshake on `fd`, waiting in poll until `deadline`.
    init(fd: Int32, address: ServerAddress, options: TLSOptions, deadline: Int64) throws(HTTPClientError) {
        let ctx: OpaquePointer
        do { ctx = try Self.makeContext(options) } catch { throw .tls(error) }
        guard let ssl = nexus_SSL_new(ctx) else {
            nexus_SSL_CTX_free(ctx)
            throw .tls(.handshake(server: "\(address)", detail: "OpenSSL could not start a connection"))
        }
        self.context = ctx
        self.ssl = ssl
        self.server = "\(address)"
        self.caFile = options.caFile
        self.sessionPath = Self.sessionPath(address, options)
        nexus_SSL_set_fd(ssl, fd)
        let param = nexus_SSL_get0_param(ssl)
        if Self.isIPAddress(address.host) {
            nexus_X509_VERIFY_PARAM_set1_ip_asc(param, address.host)
        } else {
            nexus_X509_VERIFY_PARAM_set1_host(param, address.host, 0)
            _ = nexus_SSL_set_tlsext_host_name(ssl, address.host)
        }
        if let sessionPath, let saved = Self.loadSession(sessionPath) {
            nexus_SSL_set_session(ssl, saved)
            nexus_SSL_SESSION_free(saved)
        }
        while true {
            nexus_ERR_clear_error()
            let r = nexus_SSL_connect(ssl)
            if r == 1 { break }
            switch result(r) {
            case .wait(let events):
                let left = deadline - monotonicMs()
                guard left > 0 else { throw .timedOut }
                var pfd = pollfd(fd: fd, events: events, revents: 0)
                if poll(&pfd, 1, Int32(min(left, Int64(Int32.max)))) == 0 { throw .timedOut }
            case .endOfStream:
                throw .tls(failure(address, detail: "the server closed the connection during the handshake"))
            case .failed(let why):
                throw .tls(failure(address, detail: why))
            case .done:
                break
            }
        }
        options.onHandshake?(TLSHandshake(
            server: server, version: String(cString: nexus_SSL_get_version(ssl)), resumed: nexus_SSL_session_reused(ssl) == 1))
    }

    deinit {
        nexus_SSL_free(ssl)
        nexus_SSL_CTX_free(context)
    }

    /// Data OpenSSL has decrypted and not handed out yet: the socket may have none left.
    var pending: Bool { nexus_SSL_pending(ssl) > 0 }

    func write(_ raw: UnsafeRawBufferPointer) -> SocketIO {
        nexus_ERR_clear_error()
        let n = nexus_SSL_write(ssl, raw.baseAddress, Int32(min(raw.count, Int(Int32.max))))
        return n > 0 ? .done(Int(n)) : result(n)
    }

    func read(_ raw: UnsafeMutableRawBufferPointer) -> SocketIO {
        nexus_ERR_clear_error()
        let n = nexus_SSL_read(ssl, raw.baseAddress, Int32(raw.count))
        return n > 0 ? .done(Int(n)) : result(n)
    }

    /// Keeps the session for the next process, once per connection, after the first answer:
    /// by then TLS 1.3's tickets (sent after the handshake) have arrived. Mode 0600.
    func saveSessionOnce() {
        guard !sessionSaved, let sessionPath else { return }
        sessionSaved = true
        guard let session = nexus_SSL_get1_session(ssl) else { return }
        defer { nexus_SSL_SESSION_free(session) }
        guard nexus_SSL_SESSION_is_resumable(session) == 1 else { return }
        let length = nexus_i2d_SSL_SESSION(session, nil)
        guard length > 0 else { return }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        bytes.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            _ = nexus_i2d_SSL_SESSION(session, &cursor)
        }
        // A first login or register answers before its profile's directory exists.
        let directory = String(sessionPath[..<(sessionPath.lastIndex(of: "/") ?? sessionPath.endIndex)])
        if access(directory, F_OK) != 0 { try? FileSystem.makeDirectories(directory) }
        nexus_save_session_file(sessionPath, bytes, bytes.count)
    }

    func shutdown() {
        nexus_ERR_clear_error()
        _ = nexus_SSL_shutdown(ssl)
    }

    private func result(_ r: Int32) -> SocketIO {
        let code = nexus_SSL_get_error(ssl, r)
        switch code {
        case SSL_ERROR_WANT_READ: return .wait(Int16(POLLIN))
        case SSL_ERROR_WANT_WRITE: return .wait(Int16(POLLOUT))
        case SSL_ERROR_ZERO_RETURN: return .endOfStream
        case SSL_ERROR_SYSCALL:
            let e = nexus_ERR_peek_error()
            if e == 0 { return errno == 0 ? .endOfStream : .failed(String(cString: strerror(errno)).lowercased()) }
            return .failed(Self.errorText())
        default:
            return .failed(Self.errorText())
        }
    }

    /// Sorts a failed handshake by OpenSSL's verification result.
    private func failure(_ address: ServerAddress, detail: String) -> TLSFailure {
        let verify = Int32(nexus_SSL_get_verify_result(ssl))
        let text = String(cString: nexus_X509_verify_cert_error_string(Int(verify)))
        if nexus_SSL_CTX_trust_failed(context) == 1, let file = caFile {
            return .caFile(path: file, detail: "no PEM certificate in it")
        }
        switch verify {
        case X509_V_OK:
            return .handshake(server: server, detail: detail)
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
             X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return .unknownIssuer(server: server, detail: text)
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
            return .expired(server: server, detail: text)
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            return .wrongHost(server: server, host: address.host)
        default:
            return .untrusted(server: server, detail: text)
        }
    }

    private static func errorText() -> String {
        let code = nexus_ERR_get_error()
        nexus_ERR_clear_error()
        guard code != 0 else { return "unknown OpenSSL error" }
        if let reason = nexus_ERR_reason_error_string(code) { return String(cString: reason) }
        return "OpenSSL error \(code)"
    }

    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// Where the session for this server and trust setting is kept, if anywhere.
    static func sessionPath(_ address: ServerAddress, _ options: TLSOptions) -> String? {
        options.sessionDirectory.map { $0 + "/" + sessionFileName(address, caFile: options.caFile) }
    }

    /// One file per server and trust setting: a resumed session skips the certificate check,
    /// so a session verified under one --cacert must not be resumed under another.
    private static func sessionFileName(_ address: ServerAddress, caFile: String?) -> String {
        let host = String(address.host.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (caFile ?? "system").utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "tls-session-\(host)-\(address.port)-" + String(hash, radix: 16)
    }

    private static func loadSession(_ path: String) -> OpaquePointer? {
        guard let bytes = try? FileSystem.readFile(path), !bytes.isEmpty else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return nexus_d2i_SSL_SESSION(nil, &cursor, buffer.count)
        }
    }
}
