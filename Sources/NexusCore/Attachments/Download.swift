#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a download did not end in a verified file.
public enum DownloadFailure: Error, Equatable, CustomStringConvertible {
    case api(APIError)
    case store(StoreError)
    /// The destination exists and overwriting was not asked for.
    case exists(String)
    /// The bytes are not the ones the message names.
    case mismatch(expected: String, got: String, size: Int64)

    public var description: String {
        switch self {
        case .api(let e): return e.description
        case .store(let e): return e.description
        case .exists(let path): return "\(path) exists"
        case .mismatch(let expected, let got, let size):
            return "the \(size) bytes received have SHA-256 \(got), not \(expected) as the message says"
        }
    }
}

/// `download`: an attachment streamed from the server through the SHA-256, to a file
/// (written under a temporary name, synced, checked, then put in place) or to a
/// descriptor (stdout, checked at the end).
public struct Download {
    public let api: NexusAPI
    public let conversationId: Int64
    public let seq: Int64
    public let index: Int
    public let attachment: Attachment
    public var onProgress: ((Int64, Int64) -> Void)?

    public init(api: NexusAPI, conversationId: Int64, seq: Int64, index: Int, attachment: Attachment) {
        self.api = api
        self.conversationId = conversationId
        self.seq = seq
        self.index = index
        self.attachment = attachment
    }

    /// Writes the attachment to `path`; an existing file is replaced only with `force`.
    /// Nothing appears at `path` unless every byte arrived and the hash matched. Returns
    /// the part files that killed downloads to `path` had left, which it removed.
    @discardableResult
    public func save(to path: String, force: Bool) throws(DownloadFailure) -> [Leftover] {
        if !force && FileSystem.exists(path) { throw .exists(path) }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let prefix = (folder.isEmpty ? "" : folder + "/") + ".\(base).part-"
        let leftovers = Self.removeLeftovers(in: folder.isEmpty ? "." : folder, prefix: ".\(base).part-", shownAs: prefix)
        let tmp = prefix + "\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .store(StoreError.errno(tmp, "can't create")) }
        do throws(DownloadFailure) {
            try stream(into: fd, path: tmp)
            guard fsync(fd) == 0 else { throw .store(StoreError.errno(tmp, "can't sync")) }
            close(fd)
        } catch {
            close(fd)
            unlink(tmp)
            throw error
        }
        if force {
            guard rename(tmp, path) == 0 else {
                let e = StoreError.errno(path, "can't put the file in place")
                unlink(tmp)
                throw .store(e)
            }
        } else {
            // link() fails on an existing name, so a file that appeared meanwhile is kept.
            let linked = link(tmp, path) == 0
            let reason = errno
            unlink(tmp)
            guard linked else {
                if reason == EEXIST { throw .exists(path) }
                errno = reason
                throw .store(StoreError.errno(path, "can't put the file in place"))
            }
        }
        FileSystem.syncDirectory(of: path)
        return leftovers
    }

    /// A part file of a download that was killed (kill -9, a power cut) before it could
    /// remove it.
    public struct Leftover: Equatable, Sendable {
        public var path: String
        public var size: Int64
    }

    /// Removes the `.NAME.part-PID` files whose process is gone. They are not resumed: the
    /// server sends an attachment only whole (no Range requests), so the next download
    /// starts over, and without this each kill would leave its bytes behind for good. A
    /// part whose process still runs is another download under way, and is left to it.
    static func removeLeftovers(in folder: String, prefix: String, shownAs shown: String) -> [Leftover] {
        var removed: [Leftover] = []
        for name in FileSystem.list(folder) where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count)), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) == 0 || errno == EPERM { continue }
            let path = shown + name.dropFirst(prefix.count)
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, unlink(path) == 0 else { continue }
            removed.append(Leftover(path: path, size: Int64(st.st_size)))
        }
        return removed
    }

    /// Writes the attachment to `fd` as it arrives; throws `mismatch` at the end when the
    /// bytes were not the right ones (they are written already: say so loudly).
    public func stream(into fd: Int32, path: String = "stdout") throws(DownloadFailure) {
        let digest = SHA256Digest()
        var received: Int64 = 0
        let total = attachment.size
        do throws(APIError) {
            try api.download(
                conversationId: conversationId, seq: seq, index: index,
                onSize: { _ in },
                onBody: { piece throws(APIError) in
                    digest.update(piece)
                    var done = 0
                    while done < piece.count {
                        let n = write(fd, piece.baseAddress! + done, piece.count - done)
                        if n < 0 {
                            if errno == EINTR { continue }
                            throw .badResponse("can't write \(path): \(String(cString: strerror(errno)))")
                        }
                        done += n
                    }
                    received += Int64(piece.count)
                    onProgress?(received, total)
                })
        } catch {
            throw .api(error)
        }
        let got = digest.finalHex()
        guard got == attachment.sha256, received == attachment.size else {
            throw .mismatch(expected: attachment.sha256, got: got, size: received)
        }
    }
}
