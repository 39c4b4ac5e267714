import LibC

/// A moment in milliseconds since the Unix epoch. On the wire it is an ISO-8601 UTC
/// string with milliseconds ("2026-11-22T12:03:04.123Z"): readable in jq and sortable
/// as text. The arithmetic is done by hand so the client needs no date formatter.
public struct Timestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    public static func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(milliseconds: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.milliseconds < b.milliseconds }

    public var iso8601: String {
        let ms = milliseconds
        let secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let millis = Int(ms - secs * 1000)
        let days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400
        let rem = Int(secs - days * 86400)
        let (y, m, d) = Self.civil(fromDays: days)
        return "\(pad(Int(y), 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(rem / 3600, 2)):\(pad(rem / 60 % 60, 2)):\(pad(rem % 60, 2)).\(pad(millis, 3))Z"
    }

    public var description: String { iso8601 }

    /// Parses "YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)" and the date-only "YYYY-MM-DD" (as midnight UTC).
    public init?(iso8601 text: String) {
        var text = text
        guard let t = text.withUTF8({ Timestamp(iso8601: $0) }) else { return nil }
        self = t
    }

    /// The same from the bytes (the conversation list reads twenty thousand times this way).
    package init?(iso8601 b: UnsafeBufferPointer<UInt8>) {
        func num(_ at: Int, _ len: Int) -> Int? {
            guard at + len <= b.count else { return nil }
            var v = 0
            for i in at..<(at + len) {
                let c = b[i]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        guard let y = num(0, 4), b.count >= 10, b[4] == 45, let mo = num(5, 2), b[7] == 45, let d = num(8, 2),
              (1...12).contains(mo), (1...31).contains(d) else { return nil }
        var seconds = Self.days(fromCivil: Int64(y), mo, d) * 86400
        var millis: Int64 = 0
        if b.count > 10 {
            guard b[10] == 84 || b[10] == 116 || b[10] == 32, let h = num(11, 2), b.count > 13, b[13] == 58,
                  let mi = num(14, 2), h < 24, mi < 60 else { return nil }
            var i = 16
            var s = 0
            if i < b.count, b[i] == 58 {
                guard let sv = num(17, 2), sv < 61 else { return nil }
                s = sv
                i = 19
            }
            if i < b.count, b[i] == 46 {
                i += 1
                var digits = 0
                var frac: Int64 = 0
                while i < b.count, b[i] >= 48, b[i] <= 57 {
                    if digits < 3 { frac = frac * 10 + Int64(b[i] - 48) }
                    digits += 1
                    i += 1
                }
                guard digits > 0 else { return nil }
                for _ in 0..<max(0, 3 - digits) { frac *= 10 }
                millis = frac
            }
            seconds += Int64(h * 3600 + mi * 60 + s)
            guard i < b.count else { return nil }
            if b[i] == 90 || b[i] == 122 {
                guard i + 1 == b.count else { return nil }
            } else if b[i] == 43 || b[i] == 45 {
                guard let oh = num(i + 1, 2), i + 3 < b.count, b[i + 3] == 58, let om = num(i + 4, 2), i + 6 == b.count
                else { return nil }
                let offset = Int64(oh * 3600 + om * 60)
                seconds += b[i] == 43 ? -offset : offset
            } else {
                return nil
            }
        }
        let ms = seconds * 1000 + millis
        // Only times that print back as four-digit years: an offset can push year 0000 or
        // 9999 over the edge.
        guard (Self.earliest...Self.latest).contains(ms) else { return nil }
        self.milliseconds = ms
    }

    /// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z.
    package static let earliest: Int64 = days(fromCivil: 0, 1, 1) * 86_400_000
    package static let latest: Int64 = days(fromCivil: 10000, 1, 1) * 86_400_000 - 1

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let s = try c.decode(String.self)
        guard let t = Timestamp(iso8601: s) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not an ISO-8601 time: \(s)")
        }
        self = t
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(iso8601)
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    public static func days(fromCivil y0: Int64, _ m: Int, _ d: Int) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((m + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(d) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    public static func civil(fromDays z0: Int64) -> (Int64, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

private func pad(_ v: Int, _ width: Int) -> String {
    let s = String(v)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
}
