import NexusCore

/// A contact who came or went, as `tail -f --presence --json` prints it: no seq, and no
/// place in the feed's position.
struct PresenceLine: Encodable {
    var type = "presence"
    var userId: Int64
    var user: String?
    var online: Bool
    var lastSeenAt: Timestamp?
}

extension MessagePrinter {
    /// "[10:02] Bob is online", "[10:07] Bob went offline"; at the start, only who is online.
    func show(presence states: [PresenceState], initial: Bool) {
        for s in states where !(initial && !s.online) {
            let who = person(s.userId)
            if context.output.json {
                context.output.record(PresenceLine(userId: s.userId, user: who?.email, online: s.online, lastSeenAt: s.lastSeenAt))
            } else {
                let name = who?.shownName ?? "user \(s.userId)"
                let at = LocalTime.short(s.online ? .now() : (s.lastSeenAt ?? .now()))
                let verb = s.online ? "is online" : (initial ? "is offline" : "went offline")
                context.output.line(context.output.paint(TerminalText("[\(at)] \(name) \(verb)"), .dim))
            }
        }
    }
}
