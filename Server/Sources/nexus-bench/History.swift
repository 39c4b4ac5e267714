import BenchSupport
import Foundation
import NexusCore

/// Server pages from a million-message conversation, and offline history from a million
/// cached lines.
func historyMeasures() {
    let (deepAPI, deep, deepHome, _) = makePair("dora", "erin")
    let total = 1_000_000, perBatch = 1000
    let fillStart = now()
    for b in 0..<(total / perBatch) {
        _ = try! deepAPI.sendBatch((0..<perBatch).map { BatchItem(conversationId: deep, localId: "deep-\(b)-\($0)", text: "deep history \(b * perBatch + $0)") })
    }
    FileHandle.standardError.write(Data(String(format: "  (filled 1,000,000 messages in %.1f s)\n", now() - fillStart).utf8))
    func pageTimes(before: Int64?) -> [Double] {
        (0..<50).map { _ in
            let t = now()
            _ = try! deepAPI.messages(conversationId: deep, before: before.map { .seq($0) }, limit: 50)
            return (now() - t) * 1000
        }
    }
    let newest = percentile(pageTimes(before: nil), 50)
    let deepPage = percentile(pageTimes(before: Int64(total) - 50 * 10_000 + 1), 50)
    report("server: page of 50, newest, 1,000,000-message conversation (median)", ms(newest), target: "≤ 5 ms", ok: newest <= 5)
    report("server: page of 50, page 10,000 (median)", ms(deepPage), target: "≤ 5 ms, ≤ 2× newest",
           ok: deepPage <= 5 && deepPage <= 2 * newest)

    writeCache(home: deepHome, conversation: deep, count: total) { "cached message \($0)" }
    var offlineEnv = baseEnv
    offlineEnv["NEXUS_HOME"] = deepHome
    offlineEnv["NEXUS_SERVER"] = "http://127.0.0.1:9"  // nothing listens on the discard port
    let offlineNewest = timeCommand(nexusctl, ["history", String(deep)], env: offlineEnv, runs: 20, peak: true)
    report("nexusctl history offline, 1,000,000 cached lines, newest page (median)", ms(percentile(offlineNewest.ms, 50)),
           target: "≤ 30 ms", ok: percentile(offlineNewest.ms, 50) <= 30)
    report("  its peak memory", String(format: "%.1f MiB", Double(offlineNewest.maxRSSKiB!) / 1024), target: "≤ 40 MiB",
           ok: Double(offlineNewest.maxRSSKiB!) / 1024 <= 40)
    let offlineDeep = timeCommand(nexusctl, ["history", String(deep), "--before", "500001"], env: offlineEnv, runs: 20)
    report("nexusctl history --before 500001 from the same cache (median, no network)", ms(percentile(offlineDeep.ms, 50)),
           target: "≤ 30 ms", ok: percentile(offlineDeep.ms, 50) <= 30)
}

/// A cache of `count` lines in `home`'s default profile, written the way nexusctl writes it.
/// Sent in the last minutes: older messages would go in the first command's daily prune
/// (30 days), and the rows would measure an emptied cache.
func writeCache(home: String, conversation: Int64, count: Int, text: (Int64) -> String) {
    let sentBase = Timestamp.now().milliseconds - Int64(count)
    let cache = MessageCache(profile: Profile(name: "default", home: home))
    var seq: Int64 = 0
    while seq < Int64(count) {
        let chunk = (1...10_000).map { i -> Message in
            let s = seq + Int64(i)
            return Message(id: s, conversationId: conversation, seq: s, senderId: 1, localId: "c\(s)", text: text(s),
                           sentAt: Timestamp(milliseconds: sentBase + s))
        }
        try! cache.insert(chunk)
        seq += 10_000
    }
}
