/// The durable position of one `tail -f`: a file in the profile per scope (everything, or
/// one conversation) and name, locked while a follower uses it. Two followers moving one
/// position would each skip what the other printed, so the second is refused.
public final class FeedPosition {
    public let path: String
    private let lock: FileLock

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
        guard let cursor = FeedCursor(parsing: String(decoding: bytes, as: UTF8.self)) else {
            throw StoreError(
                path: path,
                reason: "is damaged (it holds no feed position); give -n N to start again from the newest N messages, which replaces it")
        }
        return cursor
    }

    /// Replaced atomically, so a kill leaves the old position or the new one. `durable`
    /// adds the fsyncs that also survive a machine crash; a process kill needs none.
    public func save(_ cursor: FeedCursor, durable: Bool) throws(StoreError) {
        try FileSystem.writeAtomically(path, Array("\(cursor)\n".utf8), durable: durable)
    }

    public func release() { lock.unlock() }
}
