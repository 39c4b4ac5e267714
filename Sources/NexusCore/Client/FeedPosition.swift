import LibC

/// The durable position of one `tail -f`: a file in the profile per scope (everything, or
/// one conversation) and name, locked while a follower uses it. Two followers moving one
/// position would each skip what the other printed, so the second is refused.
public final class FeedPosition {
    public let path: String
    private let lock: FileLock
    /// The last message written before the position, saved beside it, so a restarted
    /// follower can say where it resumes.
    public var lastMessage: MessageReference?

    public enum OpenError: Error {
        /// Another follower holds this position.
        case busy(path: String)
        case store(StoreError)
    }

    /// Why `name` can't name a position (it becomes part of a file name), or nil.
    public static func problem(withName name: String) -> String? {
        let allowed = name.unicodeScalars.allSatisfy {
            ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "-" || $0 == "_" || $0 == "."
        }
        if name.isEmpty || !allowed || name.hasPrefix(".") || name.count > 64 {
            return "'\(name)' can't name a position: use letters, digits, '-', '_' and '.', not starting with '.'"
        }
        return nil
    }

    /// Takes the position `name` (nil: the unnamed default) of `conversationId` (nil: all).
    public init(profile: Profile, conversationId: Int64?, name: String?) throws(OpenError) {
        path = profile.cursorPath(conversationId: conversationId, name: name)
        let lock: FileLock?
        do throws(StoreError) {
            try profile.ensureDirectory()
            lock = try FileLock.tryAcquire(path + ".lock")
        } catch {
            throw .store(error)
        }
        guard let lock else { throw .busy(path: path) }
        self.lock = lock
    }

    /// The saved position; nil when none is saved yet. A file that holds no position is
    /// damage, reported with its path, never read as "start over".
    public func load() throws(StoreError) -> FeedCursor? {
        guard let bytes = try FileSystem.readFile(path) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        // "ID CHECK 3/127": the reference comes last, after the check (absent in older files).
        let words = FeedCursor.words(text)
        lastMessage = words.count == 3 ? MessageReference(String(words[2])) : nil
        guard let cursor = FeedCursor(parsing: text) else {
            throw StoreError(
                path: path,
                reason: "is damaged (it holds no feed position); give -n N to start again from the newest N messages, which replaces it")
        }
        return cursor
    }

    /// Written in place, one fixed-width record at offset 0 with one `pwrite`, because it
    /// is written after every line: replacing the file by rename made ext4 write its blocks
    /// out each time (about 1 ms a line). A kill can't tear one write, so it leaves the old
    /// position or the new one; the record stays plain text, "ID CHECK" and then the last
    /// message's reference when there is one, padded with spaces, so older files read as
    /// before. `durable` adds the fdatasync that also survives a machine crash; a process
    /// kill needs none.
    public func save(_ cursor: FeedCursor, durable: Bool) throws(StoreError) {
        if fd < 0 { try openForWriting(durable: durable) }
        var record = Array(("\(cursor)" + (cursor.check != nil ? lastMessage.map { " \($0)" } ?? "" : "")).utf8)
        guard record.count < Self.recordWidth else { throw StoreError(path: path, reason: "can't hold a position this long") }
        record += [UInt8](repeating: UInt8(ascii: " "), count: Self.recordWidth - 1 - record.count) + [UInt8(ascii: "\n")]
        let written = record.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == record.count else { throw .errno(path, "can't write") }
        if durable && fdatasync(fd) != 0 { throw .errno(path, "can't sync") }
    }

    /// Wide enough for any id, check (FeedCheck allows 64 characters) and reference.
    static let recordWidth = 128
    private var fd: Int32 = -1

    private func openForWriting(durable: Bool) throws(StoreError) {
        let existed = access(path, F_OK) == 0
        let opened = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard opened >= 0 else { throw .errno(path, "can't open") }
        fd = opened
        _ = fchmod(fd, 0o600)
        // A longer file (damaged, or written by hand) would keep a tail past the record.
        var info = stat()
        if fstat(fd, &info) == 0 && info.st_size > Self.recordWidth { _ = ftruncate(fd, off_t(Self.recordWidth)) }
        if !existed && durable { FileSystem.syncDirectory(of: path) }
    }

    deinit { if fd >= 0 { close(fd) } }

    public func release() { lock.unlock() }
}
