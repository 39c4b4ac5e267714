import NexusCore

/// `tail -f --notify`: a notice for each new message from someone else, never for one's
/// own nor in a muted conversation (unless it mentions you and the mute lets mentions
/// through), and at most one per conversation every 5 s: what comes within the window is
/// held and shown once it ends, as one notice with a count.
final class Notifier {
    static let windowMs: Int64 = 5000

    let show: (DesktopNotice) -> Void
    let hideText: Bool
    /// `--notify=mentions`: only direct messages and messages that mention me.
    let onlyMentions: Bool
    let me: Int64
    /// How a message names me (Mentions).
    let mentionNames: [String]
    /// The account's mutes, by conversation, as last heard from the server.
    var mutes: [Int64: Mute] = [:]
    private var lastShown: [Int64: Int64] = [:]
    private var held: [Int64: (message: Message, sender: String, group: String?, count: Int)] = [:]

    init(hideText: Bool, onlyMentions: Bool = false, me: User, show: @escaping (DesktopNotice) -> Void) {
        self.show = show
        self.hideText = hideText
        self.onlyMentions = onlyMentions
        self.me = me.id
        self.mentionNames = Mentions.names(of: me)
    }

    func follow(_ mutes: [Mute]) {
        self.mutes = Mute.byConversation(mutes)
    }

    /// A message that arrived while following.
    func take(_ message: Message, sender: String, group: String?, now: Timestamp = .now()) {
        guard message.senderId != me, message.membership == nil, message.deletedAt == nil else { return }
        let c = message.conversationId
        // Read only when a mute or --notify=mentions asks.
        func mentioned() -> Bool { Mentions.mention(of: mentionNames, in: message.text) }
        if let mute = mutes[c], mute.holds(at: now) {
            guard mute.exceptMentions, mentioned() else { return }
        }
        // A direct message is to me by its nature; in a group only a mention is.
        if onlyMentions, group != nil, !mentioned() { return }
        if let h = held[c] {
            held[c] = (message, sender, group, h.count + 1)
        } else if let last = lastShown[c], now.milliseconds - last < Self.windowMs {
            held[c] = (message, sender, group, 1)
        } else {
            show(message, sender: sender, group: group, count: 1, at: now)
        }
    }

    /// Shows what was held for a window that has ended.
    func flush(now: Timestamp = .now()) {
        for (c, h) in held where now.milliseconds - (lastShown[c] ?? 0) >= Self.windowMs {
            held[c] = nil
            show(h.message, sender: h.sender, group: h.group, count: h.count, at: now)
        }
    }

    /// When the first held notice is due: the tail's long poll answers by then.
    var nextDue: Timestamp? {
        held.keys.compactMap { lastShown[$0] }.min().map { Timestamp(milliseconds: $0 + Self.windowMs) }
    }

    private func show(_ message: Message, sender: String, group: String?, count: Int, at now: Timestamp) {
        lastShown[message.conversationId] = now.milliseconds
        show(DesktopNotice.of(message, sender: sender, group: group, count: count, private: hideText))
    }
}
