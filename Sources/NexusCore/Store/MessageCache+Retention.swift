import LibC

extension MessageCache {
    /// Drops cached messages sent before `cutoff`; returns how many. Each segment is
    /// rewritten atomically (temporary file, rename) with what it keeps. A segment whose
    /// first message is not older is skipped unread: sent times never go back within a
    /// conversation, so nothing in it is.
    @discardableResult
    public func prune(olderThan cutoff: Timestamp) throws(StoreError) -> Int {
        var removed = 0
        for conversationId in conversations() {
            for s in try segments(conversationId) where s.firstSentAt.map({ $0 < cutoff }) ?? true {
                let all = JSONLinesFile.parse(try FileSystem.readFile(s.path) ?? [], as: Message.self).records
                let kept = all.filter { $0.sentAt >= cutoff }
                guard kept.count < all.count else { continue }
                removed += all.count - kept.count
                unlink(s.path)
                for run in runs(kept) {
                    try JSONLinesFile(path: folder(conversationId) + "/" + Self.name(run[0].seq)).replace(with: run)
                }
            }
            rmdir(folder(conversationId))  // only succeeds when empty
        }
        return removed
    }
}

/// The cache keeps 30 days by itself, as the product documents keep messages: the first
/// command of a day prunes what is older. The outbox is another file and is never pruned,
/// so nothing still queued is lost; `cache prune` does the same by hand, with any age.
public struct CacheRetention {
    public static let keepMs: Int64 = 30 * 86_400_000
    public static let everyMs: Int64 = 86_400_000
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
