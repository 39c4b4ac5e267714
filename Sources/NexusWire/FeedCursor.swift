/// A position in a user's feed: after event `id`, whose check is `check`.
///
/// Feed ids alone can't survive a database restore: the restored database reuses the ids
/// that were lost, for other events. So a cursor also names its event by a check made of
/// what never changes in that event (its kind, what it refers to, and the server's time of
/// it). The server finds the event again and compares; a cursor that points past its head,
/// or at an event it doesn't know, is refused with 410 `unknown_cursor`.
public struct FeedCursor: Hashable, Sendable, CustomStringConvertible {
    public var id: Int64
    /// Absent at 0 (the start of the feed) and in cursors saved before checks existed.
    public var check: String?

    public init(id: Int64, check: String? = nil) {
        self.id = id
        self.check = check
    }

    public static let start = FeedCursor(id: 0)

    /// After `event`, as the server described it.
    public init(after event: SyncEvent) {
        self.init(id: event.id, check: event.check)
    }

    /// "ID" or "ID CHECK", the form a saved position takes on disk.
    public var description: String { check.map { "\(id) \($0)" } ?? "\(id)" }

    package static func words(_ text: String) -> [Substring] {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
    }

    /// Reads the on-disk form back; nil when it isn't one (a damaged file).
    public init?(parsing text: String) {
        var parts = Self.words(text)
        // A saved position may name the last message after the check (FeedPosition).
        if parts.count == 3, MessageReference(String(parts[2])) != nil { parts.removeLast() }
        guard (1...2).contains(parts.count), parts[0].allSatisfy(\.isASCII), let id = Int64(parts[0]), id >= 0 else { return nil }
        if parts.count == 2 {
            guard FeedCheck.isWellFormed(String(parts[1])) else { return nil }
            self.init(id: id, check: String(parts[1]))
        } else {
            self.init(id: id)
        }
    }
}

/// The check of a feed event: a hash of its immutable parts. The server makes it (and
/// compares it); clients only pass it back.
public enum FeedCheck {
    public static func of(_ event: SyncEvent) -> String {
        var parts: [String] = ["\(event.id)", event.type.rawValue, "\(event.conversationId)"]
        if let m = event.message { parts += ["m", "\(m.id)", "\(m.seq)", m.localId, "\(m.sentAt.milliseconds)"] }
        if let r = event.receipt { parts += ["r", "\(r.userId)", r.kind.rawValue, "\(r.seq)", "\(r.at.milliseconds)"] }
        if let c = event.conversation { parts += ["c", "\(c.id)", "\(c.createdAt.milliseconds)"] }
        // FNV-1a, 64 bits: stable across platforms and runs (Hasher is seeded per process).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in parts.joined(separator: "\u{1F}").utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    public static func isWellFormed(_ check: String) -> Bool {
        !check.isEmpty && check.count <= 64 && check.unicodeScalars.allSatisfy {
            ($0 >= "0" && $0 <= "9") || ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || $0 == "-" || $0 == "_"
        }
    }
}
