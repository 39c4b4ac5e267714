import COpenSSL

/// SHA-256 through the system's OpenSSL (EVP), fed in pieces: never a hand-written hash.
final class SHA256Digest {
    private let context: OpaquePointer?

    public init() {
        // libssl3 is a dependency of the package (COpenSSL loads it on first use); without
        // it, or without SHA-256 in it, the library is broken, not the input.
        var why = [CChar](repeating: 0, count: 256)
        precondition(nexus_openssl_load(&why, why.count) == 0, "the system's OpenSSL could not be loaded: \(String(cBuffer: why))")
        context = nexus_EVP_MD_CTX_new()
        precondition(context != nil && nexus_EVP_DigestInit_ex(context, nexus_EVP_sha256(), nil) == 1, "OpenSSL has no SHA-256")
    }

    deinit { nexus_EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = nexus_EVP_DigestUpdate(context, base, bytes.count)
    }

    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest as 64 lower-case hex digits. Call once.
    func finalHex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = nexus_EVP_DigestFinal_ex(context, &digest, &length)
        return Self.hex(digest.prefix(Int(length)))
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
