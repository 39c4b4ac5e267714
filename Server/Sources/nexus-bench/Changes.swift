import BenchSupport
import Foundation
import NexusCore

/// `edit`, `delete` and `react`, whole process, against `send` in the same run (the target:
/// each within 1.3x of send). The four commands take turns, so a busy moment of the
/// machine costs them alike; each changes a message of its own, so every run writes a
/// real change (and its feed event), never the no-op of an edit to the same text.
/// NEXUS_BENCH_CTL_BEFORE=<another nexusctl>: that build too, in turns with this one, on
/// messages of its own (its ratios printed first).
func changeMeasures(url: String) {
    let (api, conversation, home, _) = makePair("changes-alice", "changes-bob", server: url)
    let runs = 40
    var builds = [("", nexusctl)]
    if let before = ProcessInfo.processInfo.environment["NEXUS_BENCH_CTL_BEFORE"] { builds.insert(("before: ", before), at: 0) }
    _ = try! api.sendBatch(
        (1...runs * builds.count).map { BatchItem(conversationId: conversation, localId: "target-\($0)", text: "target \($0)") })
    var env = baseEnv
    env["NEXUS_HOME"] = home
    env["NEXUS_SERVER"] = url
    var times: [String: [Double]] = [:]
    for i in 1...runs {
        for (b, (label, binary)) in builds.enumerated() {
            let ref = "\(conversation)/\((i - 1) * builds.count + b + 1)"
            for (name, args) in [
                ("send", ["send", String(conversation), "benchmark message \(i)"]),
                ("edit", ["edit", ref, "edited \(i)"]),
                ("react", ["react", ref, "👍"]),
                ("delete", ["delete", ref]),
            ] {
                times[label + name, default: []] += timeCommand(binary, args, env: env, runs: 1).ms
            }
        }
    }
    for (label, _) in builds {
        let send = percentile(times[label + "send"]!, 50)
        report("\(label)nexusctl send, whole process (median, beside the changes)", ms(send))
        for name in ["edit", "react", "delete"] {
            let median = percentile(times[label + name]!, 50)
            report("\(label)nexusctl \(name), whole process (median)", ms(median) + String(format: " (%.2fx send)", median / send),
                   target: "≤ 1.3x send", ok: median <= send * 1.3)
        }
    }
}
