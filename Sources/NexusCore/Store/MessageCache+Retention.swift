import LibC
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension MessageCache {
    /// Drops cached messages sent before `cutoff`; returns how many. Sent times never go
    /// back within a conversation, so what a segment keeps is its tail: the lines before the
    /// first kept one are read (one at a time), and the tail is copied as bytes into a
    /// segment named by its first seq. A segment whose first message is not older is
    /// skipped unread. Memory stays at a chunk, however big a segment has grown (a
    /// conversation appended to for months is one segment).
    @discardableResult
    public func prune(olderThan cutoff: Timestamp) throws(StoreError) -> Int {
        var removed = 0
        for conversationId in conversations() {
            for s in try segments(conversationId) where s.firstSentAt.map({ $0 < cutoff }) ?? true {
                removed += try pruneSegment(s.path, in: folder(conversationId), olderThan: cutoff)
            }
            rmdir(folder(conversationId))  // only succeeds when empty
        }
        return removed
    }

    /// The seq and sent time of a cached line: all `prune` needs to decode.
    private struct Stamp: Decodable {
        var seq: Int64
        var sentAt: Timestamp
    }

    private func pruneSegment(_ path: String, in folder: String, olderThan cutoff: Timestamp) throws(StoreError) -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return 0 }  // gone since it was listed
        defer { close(fd) }
        let decoder = JSONDecoder()
        var dropped = 0
        var offset = 0  // of the first line not yet looked at
        var keep: (offset: Int, seq: Int64)?
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        reading: while keep == nil {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { throw .errno(path, "can't read") }
            if n == 0 { break }
            pending += chunk[..<n]
            var start = 0
            while let newline = pending[start...].firstIndex(of: 10) {
                let line = pending[start..<newline]
                if let stamp = try? decoder.decode(Stamp.self, from: Data(line)) {
                    if stamp.sentAt >= cutoff {
                        keep = (offset, stamp.seq)
                        break reading
                    }
                    dropped += 1
                }
                offset += line.count + 1
                start = newline + 1
            }
            pending.removeSubrange(..<start)
        }
        if keep?.offset == 0 { return 0 }
        // The old file goes first: a crash in between costs the cache these messages (they
        // are fetched again), never a segment overlapping another.
        unlink(path)
        if let keep { try copyTail(of: fd, from: keep.offset, to: folder + "/" + Self.name(keep.seq)) }
        return dropped
    }

    private func copyTail(of fd: Int32, from offset: Int, to path: String) throws(StoreError) {
        let tmp = path + ".tmp.\(getpid())"
        let out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if out < 0 { throw .errno(tmp, "can't create") }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var at = off_t(offset)
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, at) }
            if n < 0 { close(out); unlink(tmp); throw .errno(path, "can't read") }
            if n == 0 { break }
            do throws(StoreError) { try FileSystem.writeAll(fd: out, Array(chunk[..<n]), path: tmp) } catch {
                close(out)
                unlink(tmp)
                throw error
            }
            at += off_t(n)
        }
        close(out)
        if rename(tmp, path) != 0 {
            unlink(tmp)
            throw .errno(path, "can't replace")
        }
    }
}

/// The cache keeps 30 days by itself, as the product documents keep messages: the first
/// command of a day prunes what is older. The outbox is another file and is never pruned,
/// so nothing still queued is lost; `cache prune` does the same by hand, with any age.
public struct CacheRetention {
    static let keepMs: Int64 = 30 * 86_400_000
    static let everyMs: Int64 = 86_400_000
    let profile: Profile

    public init(profile: Profile) { self.profile = profile }

    /// Prunes when the last prune (by the stamp file's time) is a day old or more, or never
    /// was; returns how many messages went, or nil when it was not due. Best effort: a
    /// cache that can't be pruned now is tried again tomorrow.
    @discardableResult
    public func pruneIfDue(now: Timestamp = .now()) -> Int? {
        let directory = profile.directory + "/cache"
        guard FileSystem.exists(directory) else { return nil }
        let stamp = directory + "/pruned-at"
        if let last = FileSystem.modificationTime(stamp), now.milliseconds - last.milliseconds < Self.everyMs { return nil }
        // The stamp first, so commands starting together don't all prune.
        try? FileSystem.writeAtomically(stamp, Array(now.iso8601.utf8), mode: 0o600, durable: false)
        return try? MessageCache(profile: profile).prune(olderThan: Timestamp(milliseconds: now.milliseconds - Self.keepMs))
    }
}
