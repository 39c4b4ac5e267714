import LibC
import NexusCore

/// Times as the conversation list shows them (from the product documents): "Just now",
/// "5m", "2h", "Yesterday", "Mon", "12/24"; and "Last seen 2h ago" for presence.
enum SmartTime {
    static func short(_ t: Timestamp, now: Timestamp = .now()) -> String {
        let seconds = (now.milliseconds - t.milliseconds) / 1000
        if seconds < 60 { return "Just now" }
        if seconds < 3600 { return "\(seconds / 60)m" }
        // Hours for anything under a day, across midnight too: "2h", not "Yesterday", at 00:30.
        if seconds < 86400 { return "\(seconds / 3600)h" }
        let then = LocalTime.parts(t), today = LocalTime.parts(now)
        let dayGap = daysBetween(then, today)
        if dayGap == 1 { return "Yesterday" }
        if dayGap < 7 { return ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][Int(then.tm_wday)] }
        return "\(then.tm_mon + 1)/\(then.tm_mday)"
    }

    /// "Last seen 5m ago", "Last seen 2h ago", "Last seen yesterday", "Last seen 12/24".
    static func lastSeen(_ t: Timestamp, now: Timestamp = .now()) -> String {
        let seconds = (now.milliseconds - t.milliseconds) / 1000
        if seconds < 60 { return "Last seen just now" }
        if seconds < 3600 { return "Last seen \(seconds / 60)m ago" }
        if seconds < 86400 { return "Last seen \(seconds / 3600)h ago" }
        if daysBetween(LocalTime.parts(t), LocalTime.parts(now)) == 1 { return "Last seen yesterday" }
        let then = LocalTime.parts(t)
        return "Last seen \(then.tm_mon + 1)/\(then.tm_mday)"
    }

    /// Calendar days from `a` to `b` in local time.
    private static func daysBetween(_ a: tm, _ b: tm) -> Int {
        func day(_ p: tm) -> Int64 {
            Timestamp.days(fromCivil: Int64(p.tm_year) + 1900, Int(p.tm_mon) + 1, Int(p.tm_mday))
        }
        return Int(day(b) - day(a))
    }
}
