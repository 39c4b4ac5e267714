import Foundation
import NexusCore
import Testing

/// A file over the server's attachment limit is refused before it is queued (exit 2, the
/// limit and the size named): the limit is what nexusd last stated in `Nexus-Max-Attachment`,
/// kept in the profile. Real nexusd, real nexusctl processes.
@Suite(.harness)
struct AttachmentLimitTests {
    @Test func aFileOverTheLimitIsRefusedBeforeItIsQueued() throws {
        var server = try TestServer(extraArguments: ["--max-attachment", "1000"])
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let direct = String(try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id)
        let folder = try makeTempDir("limit-files")
        try Data(repeating: 65, count: 2000).write(to: URL(fileURLWithPath: folder + "/big.bin"))
        try Data(repeating: 66, count: 900).write(to: URL(fileURLWithPath: folder + "/small.bin"))

        let big = try alice.run(["send", direct, "--file", folder + "/big.bin", "too big"])
        #expect(big.code == 2, "\(big.code) \(big.err)")
        #expect(big.err.contains("2000 bytes") && big.err.contains("at most 1000 bytes"), "\(big.err)")
        #expect(try alice.outboxEntries().isEmpty, "nothing is queued")
        let piped = try alice.run(["send", direct, "--file", "-", "--name", "big.bin"], stdin: String(repeating: "x", count: 1500))
        #expect(piped.code == 2, "\(piped.err)")
        #expect(try alice.outboxEntries().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: alice.home + "/default/attachments").isEmpty, "the copy of stdin is gone")

        #expect(try alice.run(["send", direct, "--file", folder + "/small.bin", "fits"]).code == 0)

        // A larger limit is learned from the next answer.
        server.stop()
        server = try TestServer(directory: server.directory, port: server.port, extraArguments: ["--max-attachment", "4000"])
        #expect(try alice.run(["whoami"]).code == 0)
        let now = try alice.run(["send", direct, "--file", folder + "/big.bin", "fits now"])
        #expect(now.code == 0, "\(now.err)")
    }
}
