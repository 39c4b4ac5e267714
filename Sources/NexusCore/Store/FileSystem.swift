import LibC

/// A local file operation that failed, with the path and the system's reason.
public struct StoreError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    /// Set when the outbox refused new messages because it is full (`Outbox.limit`).
    public var queueFull: QueueFull? = nil

    public struct QueueFull: Sendable, Equatable {
        /// Messages queued or failed in the outbox.
        public var open: Int
        public var limit: Int

        public init(open: Int, limit: Int) {
            self.open = open
            self.limit = limit
        }
    }

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    static func errno(_ path: String, _ action: String) -> StoreError {
        StoreError(path: path, reason: "\(action): \(String(cString: strerror(Glibc.errno)))")
    }

    public var description: String { "\(path): \(reason)" }
}

/// Thin wrappers over POSIX file calls. The store needs fsync, O_APPEND, flock and
/// rename with exact semantics, so it talks to the system directly.
public enum FileSystem {
    public static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// mkdir -p with the given mode for the folders it creates.
    public static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws(StoreError) {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, mode) != 0 && Glibc.errno != EEXIST {
                throw .errno(current, "can't create folder")
            }
        }
    }

    static func readFile(_ path: String) throws(StoreError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if Glibc.errno == ENOENT { return nil }
            throw .errno(path, "can't open")
        }
        defer { close(fd) }
        return try readAll(fd: fd, path: path)
    }

    static func readAll(fd: Int32, path: String, from offset: Int = 0) throws(StoreError) -> [UInt8] {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .errno(path, "can't stat") }
        let size = max(0, Int(st.st_size) - offset)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, size - done, off_t(offset + done)) }
            if n < 0 {
                if Glibc.errno == EINTR { continue }
                throw .errno(path, "can't read")
            }
            if n == 0 { break }
            done += n
        }
        if done < size { bytes.removeLast(size - done) }
        return bytes
    }

    static func writeAll(fd: Int32, _ bytes: [UInt8], path: String) throws(StoreError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if Glibc.errno == EINTR { continue }
                throw .errno(path, "can't write")
            }
            done += n
        }
    }

    /// Replaces the file's contents all at once: a reader sees the old file or the new
    /// one, never a mix, even after a crash (write a temporary file, fsync, rename).
    /// Caches pass `durable: false` to skip the fsyncs: after a power cut such a file may
    /// hold the old contents, the new, or nothing, which a cache can afford.
    public static func writeAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600, durable: Bool = true) throws(StoreError) {
        let tmp = path + ".tmp.\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        if fd < 0 { throw .errno(tmp, "can't create") }
        do throws(StoreError) {
            try writeAll(fd: fd, bytes, path: tmp)
            _ = fchmod(fd, mode)
            if durable && fsync(fd) != 0 { throw StoreError.errno(tmp, "can't sync") }
            close(fd)
        } catch {
            close(fd)
            unlink(tmp)
            throw error
        }
        if rename(tmp, path) != 0 {
            let e = StoreError.errno(path, "can't replace")
            unlink(tmp)
            throw e
        }
        if durable { syncDirectory(of: path) }
    }

    static func syncDirectory(of path: String) {
        let dir = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let fd = open(dir.isEmpty ? "/" : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }

    /// The names in a folder (without "." and ".."), sorted; empty when it does not exist.
    public static func list(_ path: String, directoriesOnly: Bool = false) -> [String] {
        guard let handle = opendir(path) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            if directoriesOnly && entry.pointee.d_type != UInt8(DT_DIR) { continue }
            names.append(name)
        }
        return names.sorted()
    }

    /// When a file was last written, or nil when it does not exist.
    static func modificationTime(_ path: String) -> Timestamp? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Timestamp(milliseconds: Int64(st.st_mtim.tv_sec) * 1000 + Int64(st.st_mtim.tv_nsec) / 1_000_000)
    }

    /// The permission bits of a file, or nil when it does not exist.
    public static func mode(of path: String) -> mode_t? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return st.st_mode & 0o777
    }
}

/// An exclusive advisory lock (flock) held until `unlock` or process exit, so a
/// crashed holder never leaves a stale lock behind.
final class FileLock {
    private var fd: Int32
    public let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    /// Waits for the lock.
    static func acquire(_ path: String) throws(StoreError) -> FileLock {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd < 0 { throw .errno(path, "can't open lock") }
        while flock(fd, LOCK_EX) != 0 {
            if Glibc.errno == EINTR { continue }
            close(fd)
            throw .errno(path, "can't lock")
        }
        return FileLock(fd: fd, path: path)
    }

    /// Takes the lock only if nobody holds it.
    static func tryAcquire(_ path: String) throws(StoreError) -> FileLock? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd < 0 { throw .errno(path, "can't open lock") }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            if Glibc.errno == EWOULDBLOCK { return nil }
            throw .errno(path, "can't lock")
        }
        return FileLock(fd: fd, path: path)
    }

    func unlock() {
        if fd >= 0 {
            flock(fd, LOCK_UN)
            close(fd)
            fd = -1
        }
    }

    /// Replaces what the lock file holds (not synced: it means something only while held).
    func replaceContents(_ bytes: [UInt8]) throws(StoreError) {
        guard fd >= 0 else { return }
        if ftruncate(fd, 0) != 0 { throw .errno(path, "can't truncate") }
        _ = lseek(fd, 0, SEEK_SET)
        try FileSystem.writeAll(fd: fd, bytes, path: path)
    }

    deinit { unlock() }
}
