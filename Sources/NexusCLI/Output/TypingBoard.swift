import NexusCore

/// Who is typing now, as the feed tells it. Each answer names everyone typing; an
/// announcement lasts until its `until` (about 3 s), or until that person's message
/// arrives in that conversation, whichever comes first.
struct TypingBoard {
    let me: Int64
    private(set) var active: [Typing] = []
    /// Announcements a message ended: the server may name them again until they run out.
    private var ended = Set<Typing>()

    init(me: Int64) { self.me = me }

    /// Takes an answer; returns the announcements that are new, and whether the board changed.
    mutating func take(_ batch: SyncResponse, now: Timestamp = .now()) -> (fresh: [Typing], changed: Bool) {
        let named = batch.typing ?? []
        for case let m? in batch.events.map({ $0.type == .message && $0.change == nil ? $0.message : nil }) {
            for t in named + active where t.conversationId == m.conversationId && t.userId == m.senderId { ended.insert(t) }
        }
        ended = ended.filter { $0.until > now }
        let next = named.filter { $0.userId != me && $0.until > now && !ended.contains($0) }
        let fresh = next.filter { !active.contains($0) }
        let changed = Set(next) != Set(active)
        active = next
        return (fresh, changed)
    }

    /// When the first announcement runs out.
    var nextExpiry: Timestamp? { active.map(\.until).min() }
}
