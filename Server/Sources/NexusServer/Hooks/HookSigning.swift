import Crypto
import Foundation

/// The signature of an outgoing delivery: HMAC-SHA256 of the exact body bytes with the
/// hook's secret, as `sha256=<hex>` in X-Nexus-Signature-256 (GitHub's scheme, so
/// receivers that check GitHub's can check ours).
enum HookSigning {
    static let header = "X-Nexus-Signature-256"

    static func signature(body: [UInt8], secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Array(secret.utf8)))
        return "sha256=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    /// A signing secret: 256 random bits.
    static func newSecret() -> String {
        "nxs_" + Tokens.generate().dropFirst(3)
    }
}
