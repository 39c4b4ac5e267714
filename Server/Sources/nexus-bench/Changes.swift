import BenchSupport
import Foundation
import NexusCore

/// `edit`, `delete` and `react`, whole process, against `send` in the same run (issue 17:
/// each within 1.3x of send). The four commands take turns, so a busy moment of the
/// machine costs them alike; each changes a message of its own, so every run writes a
/// real change (and its feed event), never the no-op of an edit to the same text.
func changeMeasures(url: String) {
    let (api, _, home) = makeUser("changes-alice", server: url)
    let (_, reader, _) = makeUser("changes-bob", server: url)
    let conversation = try! api.openDirect(with: reader.email).conversation.id
    let runs = 40
    _ = try! api.sendBatch((1...runs).map { BatchItem(conversationId: conversation, localId: "target-\($0)", text: "target \($0)") })
    var env = baseEnv
    env["NEXUS_HOME"] = home
    env["NEXUS_SERVER"] = url
    var times: [String: [Double]] = [:]
    for i in 1...runs {
        let ref = "\(conversation)/\(i)"
        for (name, args) in [
            ("send", ["send", String(conversation), "benchmark message \(i)"]),
            ("edit", ["edit", ref, "edited \(i)"]),
            ("react", ["react", ref, "👍"]),
            ("delete", ["delete", ref]),
        ] {
            times[name, default: []] += timeCommand(nexusctl, args, env: env, runs: 1).ms
        }
    }
    let send = percentile(times["send"]!, 50)
    report("nexusctl send, whole process (median, beside the changes)", ms(send))
    for name in ["edit", "react", "delete"] {
        let median = percentile(times[name]!, 50)
        report("nexusctl \(name), whole process (median)", ms(median) + String(format: " (%.2fx send)", median / send),
               target: "≤ 1.3x send", ok: median <= send * 1.3)
    }
}
