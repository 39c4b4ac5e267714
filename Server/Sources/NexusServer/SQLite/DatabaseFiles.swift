#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SQLiteNIO

/// nexusd's SQLite files hold every message and every password and token hash, so only
/// its own user may read them, whatever the umask it was started with: the folder is 700
/// when it is the default one (the only one nexusd makes), and the database with its -wal, -shm
/// and -journal files is 600. SQLite gives the files it creates the database file's mode,
/// so creating that file 600 first covers them; existing ones are put right at start.
enum DatabaseFiles {
    static let companions = ["", "-wal", "-shm", "-journal"]

    static func prepare(path: String, ownFolder: Bool) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            var isFolder: ObjCBool = false
            let existed = FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder)
            if !existed {
                guard ownFolder else {
                    throw DatabaseFailure(
                        path: path,
                        reason: "its folder \(folder) does not exist. Create it (mkdir -p \(folder), owned by nexusd's user alone) or give --db a file in a folder that exists")
                }
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            if ownFolder { try restrict(folder, to: 0o700) }
        }
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DatabaseFailure(path: path, reason: "can't create or open it: \(String(cString: strerror(errno)))") }
        close(fd)
        for suffix in companions where FileManager.default.fileExists(atPath: path + suffix) {
            try restrict(path + suffix, to: 0o600)
        }
    }

    /// chmod, when the mode is not already `mode` (a file the user does not own but may
    /// use is left alone rather than failing the start).
    private static func restrict(_ path: String, to mode: mode_t) throws {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o777 != mode else { return }
        if chmod(path, mode) != 0 && errno != EPERM {
            throw DatabaseFailure(path: path, reason: "can't make it private (chmod \(String(mode, radix: 8))): \(String(cString: strerror(errno)))")
        }
    }
}

/// A database nexusd can't use, named with what to do about it.
public struct DatabaseFailure: Error, CustomStringConvertible {
    public var path: String
    public var reason: String

    public var description: String { "the database \(path) is unusable: \(reason)" }

    /// An error from opening or migrating the SQLite database at `path`, said plainly.
    static func wrap(_ error: any Error, path: String) -> any Error {
        guard let sqlite = error as? SQLiteError else { return error }
        switch sqlite.reason {
        case .notADatabase, .corrupt, .corruptIndex, .corruptSequenceSchema, .corruptVirtualTable:
            return DatabaseFailure(
                path: path,
                reason: """
                    \(sqlite.message) (SQLite: \(sqlite.reason)). The file is damaged or is not a nexusd database. \
                    Stop here and restore it from a backup (docs/deploy.md, "Backup and restore"); \
                    or move it and its -wal and -shm files aside to start with an empty database.
                    """)
        default:
            return DatabaseFailure(path: path, reason: "\(sqlite.message) (SQLite: \(sqlite.reason))")
        }
    }
}
