import Foundation
import Testing

/// The cache keeps 30 days by itself: the first command of a day prunes older
/// messages, once; the outbox is never touched. Old messages are made by moving cached
/// lines' sent times back, which is what a month of waiting would do.
@Suite(.harness)
struct CacheRetentionTests {
    @Test func theFirstCommandOfADayPrunesWhatIsOlderThan30Days() throws {
        let (server, alice, bob, id) = try HistoryTests().conversation(of: 20)
        defer { server.stop() }
        #expect(try bob.run(["history", id]).code == 0)
        let folder = bob.home + "/default/cache/\(id)"
        let stamp = bob.home + "/default/cache/pruned-at"
        #expect(FileManager.default.fileExists(atPath: stamp), "the first command should have pruned (nothing) and kept the day")

        // Messages 1-12 become 31 days old.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let monthAgo = formatter.string(from: Date(timeIntervalSinceNow: -31 * 86_400))
        func age(_ seqs: ClosedRange<Int>) throws {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".jsonl") {
                let path = folder + "/" + name
                let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line -> String in
                    guard var m = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                          let seq = m["seq"] as? Int, seqs.contains(seq) else { return String(line) }
                    m["sentAt"] = monthAgo
                    return String(decoding: try! JSONSerialization.data(withJSONObject: m, options: [.sortedKeys]), as: UTF8.self)
                }
                try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            }
        }
        func cachedSeqs() throws -> [Int] {
            try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".jsonl") }.flatMap { name in
                try String(contentsOfFile: folder + "/" + name, encoding: .utf8).split(separator: "\n").compactMap {
                    (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["seq"] as? Int
                }
            }.sorted()
        }
        try age(1...12)
        // Queued, never sent: the outbox is not the cache, and stays whole.
        var offline = alice
        offline.server = "http://127.0.0.1:1"
        #expect(try offline.run(["send", bob.email, "queued"]).code == 75)

        #expect(try bob.run(["whoami"]).code == 0)
        #expect(try cachedSeqs() == Array(1...20), "pruned twice in one day")

        // A day later, any command prunes.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -86_401)], ofItemAtPath: stamp)
        #expect(try bob.run(["whoami"]).code == 0)
        #expect(try cachedSeqs() == Array(13...20))
        #expect(try alice.run(["queue", "--json"]).out.contains("queued"))
    }
}
