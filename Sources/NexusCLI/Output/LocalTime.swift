import LibC
import NexusCore

/// Renders server times in the local time zone (from TZ and /etc/localtime, through the C library).
enum LocalTime {
    static func parts(_ t: Timestamp) -> tm {
        var seconds = time_t(t.milliseconds / 1000)
        var out = tm()
        localtime_r(&seconds, &out)
        return out
    }

    /// "14:03" today, "Nov 21 14:03" otherwise.
    static func short(_ t: Timestamp, now: Timestamp = .now()) -> String {
        let p = parts(t)
        let n = parts(now)
        let clock = two(Int(p.tm_hour)) + ":" + two(Int(p.tm_min))
        if p.tm_year == n.tm_year && p.tm_yday == n.tm_yday { return clock }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(months[Int(p.tm_mon)]) \(p.tm_mday) \(clock)"
    }

    private static func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
}
