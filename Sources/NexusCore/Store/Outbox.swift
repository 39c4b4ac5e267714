#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// The profile's outbox: a message is written here, and fsynced, before any network
/// I/O, and leaves the queued state only when the server has acknowledged it.
///
/// Two locks: `outbox.lock` is held for moments, around every append and the compaction,
/// so a compaction can never drop a record appended beside it; `flush.lock` is held by
/// whoever delivers the queue, for as long as that takes, so two flushes never send the
/// same messages at once.
public struct Outbox: Sendable {
    public let file: JSONLinesFile
    let lockPath: String
    let flushLockPath: String
    /// Held by a delivery while one request is in flight, and holding the localIds it
    /// carries: a drop of one of them waits for the verdict (see Outbox+Drop).
    let inFlightPath: String
    /// The most messages (queued or failed) the outbox takes; nil for no limit.
    public var limit: Int? = Outbox.defaultLimit
    /// The account this command acts as: every message it queues is recorded as its.
    public var author: OutboxAuthor?

    static let defaultLimit = 10_000

    public init(profile: Profile) {
        self.file = profile.outbox
        self.lockPath = profile.directory + "/outbox.lock"
        self.flushLockPath = profile.directory + "/flush.lock"
        self.inFlightPath = profile.directory + "/inflight.lock"
    }

    static func newLocalId() -> String { UUID().uuidString.lowercased() }

    /// True while a delivery (`queue flush`, `send`, …) of this profile holds the flush lock.
    var isDelivering: Bool {
        if let lock = try? FileLock.tryAcquire(flushLockPath) {
            lock.unlock()
            return false
        }
        return FileSystem.exists(flushLockPath)
    }

    /// A ceiling on the attempts counted, so a damaged or hostile count can't overflow.
    static let maxAttempts = 1_000_000

    /// Appends records under the outbox lock and fsyncs them (unless `sync` is false). New
    /// messages (`queued` records) are refused when they would take the open messages past `limit`.
    func append(_ records: [OutboxRecord], sync: Bool = true) throws(StoreError) {
        guard !records.isEmpty else { return }
        let lock = try FileLock.acquire(lockPath)
        defer { lock.unlock() }
        let adding = records.count(where: { $0.op == .queued })
        if adding > 0, let limit { try admit(adding, limit: limit) }
        try file.append(stamped(records), sync: sync)
    }

    /// Records new messages durably. Give each a conversation id, or the recipient's
    /// email when the conversation is not known yet.
    @discardableResult
    public func enqueue(_ messages: [(conversationId: Int64?, to: String?, text: String)], replyTo: Int64? = nil) throws(StoreError) -> [OutboxEntry] {
        let now = Timestamp.now()
        let records = messages.map {
            var r = OutboxRecord(op: .queued, localId: Self.newLocalId(), at: now, conversationId: $0.conversationId, to: $0.to, text: $0.text)
            r.replyTo = replyTo
            return r
        }
        try append(records)
        return records.map {
            OutboxEntry(
                localId: $0.localId, conversationId: $0.conversationId, to: $0.to, text: $0.text ?? "", queuedAt: now,
                status: .queued, attempts: 0, replyTo: $0.replyTo)
        }
    }

    /// Records a change to a sent message durably: an edit (with `text`), a delete, or a
    /// reaction (with `emoji`).
    @discardableResult
    public func enqueue(change kind: OutboxKind, of message: MessageReference, text: String? = nil, emoji: String? = nil) throws(StoreError) -> OutboxEntry {
        var r = OutboxRecord(op: .queued, localId: Self.newLocalId(), at: .now(), conversationId: message.conversationId, text: text)
        r.kind = kind
        r.target = message.seq
        r.emoji = emoji
        if kind == .delete {
            try enqueueDelete(r, of: message)
        } else {
            try append([r])
        }
        return OutboxEntry(
            kind: kind, localId: r.localId, conversationId: message.conversationId, text: text ?? "", queuedAt: r.at, status: .queued,
            attempts: 0, target: message.seq, emoji: emoji)
    }

    public struct Contents: Sendable {
        /// Every message, oldest first, in its current state.
        public var entries: [OutboxEntry]
        /// Complete lines that can't be read: their messages may be lost until `repair`.
        public var damaged: [DamagedRecord]
        /// The file ends in a partial line: a crash mid-write, which no command reported
        /// done. Harmless; the next append cuts it off.
        public var tornTail: Bool
        /// How many records the file holds, settled ones included.
        var recordCount: Int
        /// The damaged lines as they are, so a rewrite can keep them.
        var damagedLines: [JSONLinesFile.SkippedLine]
        /// Messages dropped (`queue drop`), by localId, with when: kept a day across rewrites
        /// (see `tombstoneSeconds`), so a delivery that waited that long still knows.
        public var dropped: [String: Timestamp] = [:]

        /// Records that could not be read (a torn last line counts once).
        var damagedRecords: Int { damaged.count + (tornTail ? 1 : 0) }
    }

    public func read() throws(StoreError) -> Contents {
        let result = try file.read(OutboxRecord.self)
        var order: [String] = []
        var byId: [String: OutboxEntry] = [:]
        var dropped: [String: Timestamp] = [:]
        for r in result.records {
            if r.op == .queued {
                guard byId[r.localId] == nil, dropped[r.localId] == nil, let entry = Self.entry(queued: r) else { continue }
                order.append(r.localId)
                byId[r.localId] = entry
                continue
            }
            if r.op == .dropped {
                // A late drop never undoes an acknowledgement (`drop` writes none then anyway).
                // A rewrite keeps the tombstone without its message.
                if byId[r.localId]?.status != .sent {
                    dropped[r.localId] = r.at
                    byId[r.localId] = nil
                }
                continue
            }
            guard var e = byId[r.localId] else { continue }
            if r.op == .sent || r.op == .failed || r.op == .deferred { e.attempts = min(e.attempts + 1, Self.maxAttempts) }
            switch r.op {
            case .queued: break
            case .sent:
                e.status = .sent
                e.messageId = r.messageId
                e.seq = r.seq
                e.conversationId = r.conversationId ?? e.conversationId
                e.nextAttemptAt = nil
            case .failed:
                // A late failure never undoes an acknowledgement.
                if e.status != .sent {
                    e.status = .failed
                    e.lastError = r.error
                    e.nextAttemptAt = nil
                }
            case .deferred:
                if e.status == .queued {
                    e.lastError = r.error
                    e.nextAttemptAt = r.nextAttemptAt
                    if e.tryingSince == nil { e.tryingSince = r.at }
                }
            case .retry:
                if e.status == .failed {
                    e.status = .queued
                    e.nextAttemptAt = nil
                    e.tryingSince = nil
                }
            case .dropped: break
            }
            if let c = r.conversationId, e.conversationId == nil { e.conversationId = c }
            byId[r.localId] = e
        }
        return Contents(
            entries: order.compactMap { byId[$0] }, damaged: result.skipped.map(DamagedRecord.init), tornTail: result.tornTail,
            recordCount: result.records.count, damagedLines: result.skipped, dropped: dropped)
    }

    public func entries() throws(StoreError) -> [OutboxEntry] { try read().entries }

    /// `records` with this command's account on each new message.
    func stamped(_ records: [OutboxRecord]) -> [OutboxRecord] {
        guard let author else { return records }
        return records.map { r in
            var r = r
            author.stamp(&r)
            return r
        }
    }

    /// The entry a `queued` record starts, or nil when the record lacks what its kind needs.
    static func entry(queued r: OutboxRecord) -> OutboxEntry? {
        let kind = r.kind ?? .send
        switch kind {
        case .send: guard r.conversationId != nil || r.to != nil, r.text != nil else { return nil }
        case .edit: guard r.conversationId != nil, r.target != nil, r.text != nil else { return nil }
        case .delete: guard r.conversationId != nil, r.target != nil else { return nil }
        case .react, .unreact: guard r.conversationId != nil, r.target != nil, r.emoji != nil else { return nil }
        case .add, .remove: guard r.conversationId != nil, r.emails?.isEmpty == false else { return nil }
        case .leave: guard r.conversationId != nil else { return nil }
        case .rename: guard r.conversationId != nil, r.text != nil else { return nil }
        case .mute, .unmute: guard r.conversationId != nil else { return nil }
        }
        return OutboxEntry(
            kind: kind, localId: r.localId, conversationId: r.conversationId, to: r.to, text: r.text ?? "", queuedAt: r.at,
            status: .queued, attempts: min(max(r.attempts ?? 0, 0), Self.maxAttempts), target: r.target, emoji: r.emoji,
            replyTo: r.replyTo, files: r.files ?? [], emails: r.emails ?? [], until: r.until, exceptMentions: r.exceptMentions ?? false,
            author: OutboxAuthor(r))
    }

    /// Rewrites the file with only the messages not yet sent, each as one record, when
    /// settled records make up most of it; atomic (temporary file, fsync, rename). Damaged
    /// lines are carried over as they are: only `repair` drops them, when asked.
    /// Returns whether it rewrote.
    @discardableResult
    func compact(force: Bool = false) throws(StoreError) -> Bool {
        let lock = try FileLock.acquire(lockPath)
        defer { lock.unlock() }
        let contents = try read()
        let open = contents.entries.filter { $0.status != .sent }
        let settled = contents.recordCount - Self.tombstones(contents).count
        guard force || (settled >= 64 && open.count * 4 < settled) else { return false }
        try rewrite(contents)
        return true
    }

    /// The file with only the entries not yet sent (and the tombstones, and the damaged
    /// lines as they are), then `adding`; atomic and durable. The caller holds the lock.
    func rewrite(_ contents: Contents, adding: [OutboxRecord] = []) throws(StoreError) {
        let open = contents.entries.filter { $0.status != .sent }
        try file.replace(with: Self.records(for: open) + Self.tombstones(contents) + adding, keeping: contents.damagedLines)
    }

    /// Drops the damaged lines (and a torn tail), keeping every message that can be read
    /// as it is. Returns what it dropped.
    @discardableResult
    public func repair() throws(StoreError) -> [DamagedRecord] {
        let lock = try FileLock.acquire(lockPath)
        defer { lock.unlock() }
        let contents = try read()
        guard !contents.damaged.isEmpty || contents.tornTail else { return [] }
        try file.replace(with: Self.records(for: contents.entries.filter { $0.status != .sent }) + Self.tombstones(contents))
        return contents.damaged
    }

    /// How long a rewrite keeps a dropped message's tombstone: a `send` that waited for a
    /// running flush must still learn that its message was dropped, not take it for queued.
    static let tombstoneSeconds: Int64 = 86_400

    /// The `dropped` records a rewrite keeps (without their messages' text).
    private static func tombstones(_ contents: Contents, now: Timestamp = .now()) -> [OutboxRecord] {
        contents.dropped.filter { now.milliseconds - $0.value.milliseconds < tombstoneSeconds * 1000 }
            .sorted { ($0.value, $0.key) < ($1.value, $1.key) }
            .map { OutboxRecord(op: .dropped, localId: $0.key, at: $0.value) }
    }

    /// Each open message as one `queued` record, plus one verdict record when it has one.
    private static func records(for open: [OutboxEntry]) -> [OutboxRecord] {
        var records: [OutboxRecord] = []
        for e in open {
            let verdict = e.status == .failed || e.lastError != nil || e.nextAttemptAt != nil || e.tryingSince != nil
            var queued = OutboxRecord(
                op: .queued, localId: e.localId, at: e.queuedAt, conversationId: e.conversationId, to: e.to,
                text: e.kind == .send || e.kind == .edit || e.kind == .rename ? e.text : nil)
            if e.kind != .send { queued.kind = e.kind }
            queued.target = e.target
            queued.emoji = e.emoji
            queued.replyTo = e.replyTo
            // The verdict record below counts one attempt itself.
            queued.attempts = verdict ? max(0, e.attempts - 1) : e.attempts
            queued.files = e.files.isEmpty ? nil : e.files
            queued.emails = e.emails.isEmpty ? nil : e.emails
            queued.until = e.until
            queued.exceptMentions = e.exceptMentions ? true : nil
            e.author?.stamp(&queued)
            records.append(queued)
            if e.status == .failed {
                records.append(OutboxRecord(op: .failed, localId: e.localId, at: e.queuedAt, error: e.lastError))
            } else if let since = e.tryingSince {
                // Its time is when the trying began: the retry limit counts from there.
                records.append(OutboxRecord(op: .deferred, localId: e.localId, at: since, error: e.lastError, nextAttemptAt: e.nextAttemptAt))
            } else if e.lastError != nil || e.nextAttemptAt != nil {
                // Retried after it failed: the failure and the retry, so the retry limit's
                // clock stays stopped until its next failed try.
                records.append(OutboxRecord(op: .failed, localId: e.localId, at: e.queuedAt, error: e.lastError))
                records.append(OutboxRecord(op: .retry, localId: e.localId, at: e.queuedAt))
            }
        }
        return records
    }
}

/// A line of the outbox that can't be read: a changed byte, a bad disk. Its message is
/// not lost in silence: it is named by its line and whatever of it can still be read.
public struct DamagedRecord: Sendable, Equatable, Encodable {
    /// 1-based line number in the outbox file.
    public var line: Int
    public var localId: String?
    public var op: String?
    /// The line as text (bytes that are not UTF-8 replaced), for a person to read.
    public var text: String

    init(_ skipped: JSONLinesFile.SkippedLine) {
        line = skipped.line
        localId = Self.field("localId", in: skipped.bytes)
        op = Self.field("op", in: skipped.bytes)
        text = String(decoding: skipped.bytes, as: UTF8.self)
    }

    /// The plain string value of `"name":"…"`, if the damage spared it.
    static func field(_ name: String, in bytes: [UInt8]) -> String? {
        let key = Array("\"\(name)\":\"".utf8)
        guard bytes.count > key.count else { return nil }
        var i = 0
        while i + key.count <= bytes.count {
            if bytes[i] == key[0] && Array(bytes[i..<(i + key.count)]) == key {
                let start = i + key.count
                guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\"")), end > start, end - start <= 200 else { return nil }
                let value = bytes[start..<end]
                // Only a value that is plainly text is worth showing as the id.
                guard value.allSatisfy({ $0 >= 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "\\") }) else { return nil }
                return String(decoding: value, as: UTF8.self)
            }
            i += 1
        }
        return nil
    }
}
