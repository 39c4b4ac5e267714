import NexusWire

/// Prometheus Alertmanager's webhook payload (version 4), and how each alert reads as a
/// message: the state first, in capitals, then what and where, then the summary, so a
/// person takes it in at a glance:
///
///     FIRING: DiskFull on db1 (critical)
///     Disk /var is 95% full
///     since 2026-11-23 13:40 UTC
struct AlertmanagerPayload: Decodable {
    struct Alert: Decodable {
        var status: String
        var labels: [String: String]
        var annotations: [String: String]?
        var startsAt: String?
        var endsAt: String?
        var generatorURL: String?
    }

    var version: String?
    var status: String?
    var alerts: [Alert]

    /// One message text per alert, each within the message size limit.
    var messages: [String] { alerts.map(Self.text) }

    static func text(_ alert: Alert) -> String {
        let resolved = alert.status.lowercased() == "resolved"
        let name = alert.labels["alertname"] ?? "alert"
        var head = (resolved ? "RESOLVED: " : "FIRING: ") + name
        if let place = alert.labels["instance"] ?? alert.labels["job"] { head += " on \(place)" }
        if let severity = alert.labels["severity"] { head += " (\(severity))" }
        var lines = [head]
        let notes = alert.annotations ?? [:]
        let summary = notes["summary"] ?? notes["message"]
        if let summary, !summary.isEmpty { lines.append(summary) }
        if let description = notes["description"], !description.isEmpty, description != summary { lines.append(description) }
        let start = alert.startsAt.flatMap(parse)
        let end = alert.endsAt.flatMap(parse)
        if resolved, let start, let end {
            lines.append("fired \(show(start)), resolved \(show(end)) (\(duration(end.milliseconds - start.milliseconds)))")
        } else if let start {
            lines.append("since \(show(start))")
        }
        var text = lines.joined(separator: "\n")
        while text.utf8.count > Limits.maxTextBytes { text = String(text.prefix(text.count - text.count / 8 - 1)) }
        return text
    }

    /// RFC 3339 as Alertmanager writes it, nanoseconds included; its zero time means "not set".
    static func parse(_ text: String) -> Timestamp? {
        guard !text.hasPrefix("0001-") else { return nil }
        var s = text
        if let dot = s.firstIndex(of: "."), s.distance(from: s.startIndex, to: dot) == 19 {
            let end = s[dot...].firstIndex { $0 == "Z" || $0 == "+" || $0 == "-" } ?? s.endIndex
            s.removeSubrange(dot..<end)
        }
        return Timestamp(iso8601: s)
    }

    static func show(_ t: Timestamp) -> String {
        let iso = t.iso8601
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5)) + " UTC"
    }

    static func duration(_ ms: Int64) -> String {
        let minutes = max(0, ms) / 60_000
        if minutes < 1 { return "under a minute" }
        if minutes < 120 { return "\(minutes) min" }
        if minutes < 48 * 60 { return "\(minutes / 60) h \(minutes % 60) min" }
        return "\(minutes / 1440) days"
    }
}
