import Foundation
import NexusCore
import Testing

/// Reading marks read: `history --read`, and `mark-read = yes` in the config for
/// every reading command; without either, reading leaves messages unread.
@Suite(.harness)
struct ReadingMarksReadTests {
    @Test func historyReadAndTheConfigLineMarkWhatIsPrinted() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        func send(_ text: String) throws -> String {
            try alice.run(["send", bob.email, text, "--json"]).decode(SentJSON.self).localId
        }
        func statusText(_ localId: String) throws -> String {
            try alice.run(["status", localId, "--json"]).decode(StatusJSON.self).statusText
        }

        let first = try send("one")
        #expect(try bob.run(["history", alice.email]).code == 0)
        #expect(try statusText(first) != "Read", "plain history must not mark read")
        #expect(try bob.run(["history", alice.email, "--read"]).code == 0)
        #expect(try statusText(first) == "Read")

        let second = try send("two")
        var reader = bob
        let config = try makeTempDir("config")
        try FileManager.default.createDirectory(atPath: config + "/nexus", withIntermediateDirectories: true)
        try "mark-read = yes\n".write(toFile: config + "/nexus/config", atomically: true, encoding: .utf8)
        reader.extraEnvironment["XDG_CONFIG_HOME"] = config
        #expect(try reader.run(["tail", alice.email]).code == 0)
        #expect(try statusText(second) == "Read")

        let third = try send("three")
        #expect(try reader.run(["history", alice.email]).code == 0)
        #expect(try statusText(third) == "Read")
    }
}
