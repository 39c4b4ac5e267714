#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How far each file of a queued message has gone up, as the server last acknowledged it:
/// one small file per SHA-256 under the profile, so `queue` shows it without asking the
/// server (and without a login). Best effort and not synced: a lost or torn figure only
/// means `queue` shows none; the upload itself asks the server where to go on from.
public struct UploadProgress: Sendable {
    public let folder: String

    public init(profile: Profile) {
        folder = profile.directory + "/upload-progress"
    }

    private func path(_ sha256: String) -> String { folder + "/" + sha256 }

    /// The bytes of `sha256` the server had at the last report, if known.
    public func bytes(_ sha256: String) -> Int64? {
        guard let raw = try? FileSystem.readFile(path(sha256)) else { return nil }
        return Int64(String(decoding: raw, as: UTF8.self))
    }

    public func record(_ sha256: String, bytes: Int64) {
        guard (try? FileSystem.makeDirectories(folder)) != nil else { return }
        try? FileSystem.writeAtomically(path(sha256), Array(String(bytes).utf8), durable: false)
    }

    public func forget(_ sha256: String) {
        unlink(path(sha256))
    }
}
