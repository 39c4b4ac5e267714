import Foundation
import Testing

/// A `tail -f` names everyone in its lines, those who joined after it started too: an
/// incoming hook's bot was "user 3" for as long as the tail ran, and joined without a word.
@Suite(.harness)
struct TailNamesTests {
    @Test func aHooksBotThatJoinedAfterTheTailStartedIsNamed() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "hello"]).code == 0)
        let (text, out, err) = try bob.spawn(["tail", "-f"])
        let (json, jsonOut, jsonErr) = try bob.spawn(["tail", "-f", "--json", "--cursor", "json"])
        defer { for p in [text, json] where p.isRunning { p.terminate() } }
        #expect(out.wait { $0.contains { $0.hasSuffix("Alice: hello") } }, "\(out.text) \(err.text)")
        #expect(jsonOut.wait { $0.contains { $0.contains("hello") } }, "\(jsonOut.text) \(jsonErr.text)")

        let created = try alice.run(["hook", "create", bob.email, "--name", "disk-alerts"])
        #expect(created.code == 0, "\(created.err)")
        let url = created.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try curl(url, ["-d", "disk 95% full"]).status == 201)
        #expect(try curl(url, ["-d", "disk 97% full"]).status == 201)

        #expect(out.wait { $0.contains { $0.hasSuffix("disk-alerts [bot]: disk 97% full") } }, "\(out.text) \(err.text)")
        // The bot's join is a membership line like a person's, before its first post.
        let joined = try #require(out.lines.firstIndex { $0.contains("Alice added disk-alerts [bot]") }, "\(out.text)")
        #expect(joined < (out.lines.firstIndex { $0.hasSuffix("disk 95% full") } ?? 0), "\(out.text)")
        #expect(try bob.run(["history", alice.email]).out.contains("Alice added disk-alerts [bot]"))
        #expect(out.lines.contains { $0.hasSuffix("disk-alerts [bot]: disk 95% full") }, "\(out.text)")
        #expect(!out.text.contains("user "), "\(out.text)")
        #expect(jsonOut.wait { decodeLines($0.joined(separator: "\n"), as: TailLineJSON.self).filter { $0.text?.hasPrefix("disk 9") == true }.count == 2 })
        let bots = decodeLines(jsonOut.text, as: TailLineJSON.self).filter { $0.text?.hasPrefix("disk 9") == true }
        #expect(bots.allSatisfy { $0.sender?.hasSuffix("@bots.invalid") == true }, "\(jsonOut.text)")
    }
}
