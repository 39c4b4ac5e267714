import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The certificate and key nexusd serves HTTPS with (`--tls-cert`, `--tls-key`), kept so
/// that SIGHUP can swap them: a new connection takes the newest context, while the
/// connections already open (held long polls) keep theirs until they close.
public final class TLSCertificates: Sendable {
    public let certificatePath: String
    public let keyPath: String
    private let current: Mutex<NIOSSLContext>

    /// Loads the pair; throws with the reason when either file is unusable.
    public init(certificatePath: String, keyPath: String) throws {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.current = Mutex(try Self.load(certificatePath: certificatePath, keyPath: keyPath))
    }

    /// The context new connections get.
    var context: NIOSSLContext { current.withLock { $0 } }

    /// Reads the files again (a certbot renewal). A pair that does not load, or a key that
    /// does not match the certificate, is refused: the one in use stays, and the error says why.
    public func reload() throws {
        let fresh = try Self.load(certificatePath: certificatePath, keyPath: keyPath)
        current.withLock { $0 = fresh }
    }

    /// TLS 1.2 at least; the chain in the PEM file is served whole (leaf first).
    static func load(certificatePath: String, keyPath: String) throws -> NIOSSLContext {
        let chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        guard !chain.isEmpty else { throw TLSFileError(path: certificatePath, reason: "holds no PEM certificate") }
        let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        // TLS 1.2 with forward secrecy and AEAD only: no CBC suites (testssl.sh's LUCKY13
        // warning, docs/tls.md). TLS 1.3's suites are all AEAD.
        configuration.cipherSuiteValues = [
            .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
            .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
            .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
        ]
        // BoringSSL checks that the key belongs to the leaf certificate here.
        return try NIOSSLContext(configuration: configuration)
    }
}

struct TLSFileError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "\(path) \(reason)" }
}

/// Hummingbird's TLSChannel, but taking the TLS context at each new connection from
/// `TLSCertificates` instead of once at start, so SIGHUP can rotate the certificate.
struct ReloadableTLSChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let certificates: TLSCertificates

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let context = certificates.context
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension ReloadableTLSChannel: HTTPChannelHandler where Base: HTTPChannelHandler {
    var responder: HTTPChannelHandler.Responder { base.responder }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 over TLS with a certificate that SIGHUP can replace.
    static func reloadableTLS(_ configuration: HTTP1Channel.Configuration, certificates: TLSCertificates) -> HTTPServerBuilder {
        .init { responder in
            ReloadableTLSChannel(base: HTTP1Channel(responder: responder, configuration: configuration), certificates: certificates)
        }
    }
}
