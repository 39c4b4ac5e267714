#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file to attach, as the outbox keeps it until it is uploaded: where it is, and the
/// size and SHA-256 it had when it was queued, so a file changed or gone by upload time
/// fails its message instead of sending something else.
public struct OutboxFile: Codable, Sendable, Equatable {
    public var path: String
    public var name: String
    public var size: Int64
    public var sha256: String
    public var type: String
    /// The file is the outbox's own copy (of stdin), removed once the message is sent.
    public var spooled: Bool?

    public init(path: String, name: String, size: Int64, sha256: String, type: String, spooled: Bool? = nil) {
        self.path = path
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.type = type
        self.spooled = spooled
    }

    public var attachment: Attachment { Attachment(name: name, size: size, type: type, sha256: sha256) }
}

/// Reading files in pieces: hashing, spooling stdin, uploading. Nothing here holds a
/// whole file.
public enum LocalFile {
    /// Bytes a read takes at a time.
    static let pieceBytes = 1 << 20

    /// Size and SHA-256 of the regular file at `path`.
    public static func measure(_ path: String, onProgress: ((Int64) -> Void)? = nil) throws(StoreError) -> (size: Int64, sha256: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.errno(path, "can't open") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw StoreError.errno(path, "can't stat") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw StoreError(path: path, reason: "not a regular file") }
        let digest = SHA256Digest()
        var buffer = [UInt8](repeating: 0, count: pieceBytes)
        var total: Int64 = 0
        while true {
            let n = try readSome(fd, &buffer, path: path)
            if n == 0 { break }
            buffer.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            total += Int64(n)
            onProgress?(total)
        }
        return (total, digest.finalHex())
    }

    /// Copies `input` (stdin) into `folder` durably, hashing as it goes; the copy is
    /// named by its SHA-256 (and a random tail: each message removes its own copy).
    public static func spool(from input: Int32, into folder: String) throws(StoreError) -> (path: String, size: Int64, sha256: String) {
        try FileSystem.makeDirectories(folder)
        let tmp = folder + "/.incoming-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.errno(tmp, "can't create") }
        let digest = SHA256Digest()
        var buffer = [UInt8](repeating: 0, count: pieceBytes)
        var total: Int64 = 0
        do throws(StoreError) {
            while true {
                let n = try readSome(input, &buffer, path: "stdin")
                if n == 0 { break }
                buffer.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                try FileSystem.writeAll(fd: fd, Array(buffer[0..<n]), path: tmp)
                total += Int64(n)
            }
            guard fsync(fd) == 0 else { throw StoreError.errno(tmp, "can't sync") }
        } catch {
            close(fd)
            unlink(tmp)
            throw error
        }
        close(fd)
        let sha = digest.finalHex()
        let path = folder + "/" + sha + "-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        guard rename(tmp, path) == 0 else {
            let e = StoreError.errno(path, "can't rename")
            unlink(tmp)
            throw e
        }
        FileSystem.syncDirectory(of: path)
        return (path, total, sha)
    }

    /// One read into `buffer`; 0 at the end.
    static func readSome(_ fd: Int32, _ buffer: inout [UInt8], path: String, at offset: Int64? = nil) throws(StoreError) -> Int {
        while true {
            let count = buffer.count
            let n = buffer.withUnsafeMutableBytes { raw in
                offset.map { pread(fd, raw.baseAddress, count, off_t($0)) } ?? read(fd, raw.baseAddress, count)
            }
            if n >= 0 { return n }
            if errno != EINTR { throw StoreError.errno(path, "can't read") }
        }
    }

    /// A media type from the name's extension, for the common kinds; otherwise
    /// `application/octet-stream`.
    public static func mediaType(forName name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        let ext = name[name.index(after: dot)...].lowercased()
        let types: [String: String] = [
            "txt": "text/plain", "log": "text/plain", "md": "text/markdown", "csv": "text/csv", "json": "application/json",
            "html": "text/html", "xml": "application/xml", "yaml": "application/yaml", "yml": "application/yaml",
            "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "svg": "image/svg+xml",
            "webp": "image/webp", "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip",
            "tar": "application/x-tar", "mp4": "video/mp4", "mp3": "audio/mpeg", "wav": "audio/wav",
        ]
        return types[ext] ?? "application/octet-stream"
    }

    /// "1.2 MiB", "512 B".
    public static func humanSize(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 || value >= 100 ? "\(Int(value.rounded())) \(units[unit])" : "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
