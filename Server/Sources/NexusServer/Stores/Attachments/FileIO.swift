#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

/// The few POSIX file calls the blob folder needs, as throwing functions on descriptors.
enum FileIO {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ what: String, _ path: String = "") {
            description = "\(what)\(path.isEmpty ? "" : " \(path)"): \(String(cString: strerror(errno)))"
        }
    }

    static func makeFolder(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { throw Failure("can't make the folder", prefix) }
        }
    }

    /// Opens (creating) `path` for writing at `offset`, cutting off anything after it: bytes
    /// of a chunk that was never acknowledged.
    static func openForAppend(_ path: String, at offset: Int64) throws -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure("can't open", path) }
        guard ftruncate(fd, off_t(offset)) == 0 else {
            let failure = Failure("can't truncate", path)
            _ = Glibc.close(fd)
            throw failure
        }
        return fd
    }

    static func openForReading(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure("can't open", path) }
        return fd
    }

    static func write(_ fd: Int32, _ buffer: ByteBuffer, at offset: Int64) throws {
        try buffer.withUnsafeReadableBytes { raw in
            var done = 0
            while done < raw.count {
                let n = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw Failure("can't write a blob")
                }
                done += n
            }
        }
        // Start writing these bytes out now, while the rest of the chunk arrives, so the
        // fsync that acknowledges the chunk has little left to wait for.
        _ = startWriteback?(fd, offset, Int64(buffer.readableBytes), 2)  // SYNC_FILE_RANGE_WRITE
    }

    /// Linux's sync_file_range, which Swift's Glibc module does not export; nil elsewhere.
    private static let startWriteback: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
    }()

    static func read(_ fd: Int32, count: Int, at offset: Int64) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        let n = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw -> Int in
            while true {
                let n = pread(fd, raw.baseAddress!, count, off_t(offset))
                if n >= 0 { return n }
                if errno != EINTR { throw Failure("can't read a blob") }
            }
        }
        _ = n
        return buffer
    }

    static func sync(_ fd: Int32) throws {
        guard fsync(fd) == 0 else { throw Failure("can't sync a blob") }
    }

    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Makes `from` durable under the name `to`: fsync the file, rename, fsync the folder.
    /// An empty file never had a chunk written, so it is made here.
    static func syncAndRename(_ from: String, to: String) throws {
        let fd = open(from, O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure("can't open", from) }
        defer { _ = Glibc.close(fd) }
        try sync(fd)
        guard rename(from, to) == 0 else { throw Failure("can't rename", from) }
        let folder = String(to[..<(to.lastIndex(of: "/") ?? to.startIndex)])
        let dir = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            _ = fsync(dir)
            _ = Glibc.close(dir)
        }
    }
}
