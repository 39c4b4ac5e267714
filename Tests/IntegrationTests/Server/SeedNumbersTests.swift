import Foundation
import Testing

/// The product documents' numbers, through the real binaries; typing's 3 s is
/// checked in nexusd's ReceiptsTypingPresenceTests with a settable clock, smart times in SmartTimeTests.
@Suite(.harness)
struct SeedNumbersTests {
    @Test func tailWithoutNShowsTheNewest50AndAnEmptyServerSaysNoContacts() throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try User("alice", server: server.url)
        try alice.register(name: "Alice")
        let alone = try alice.run(["users"])
        #expect(alone.err.contains("No Contacts Found. No other users are registered yet.\nInvite friends to join!"), "\(alone.out) \(alone.err)")

        let bob = try User("bob", server: server.url)
        try bob.register(name: "Bob")
        let lines = (1...60).map { "m\($0)" }.joined(separator: "\n") + "\n"
        #expect(try alice.run(["send", bob.email, "--each-line"], stdin: lines).code == 0)
        let tail = try bob.run(["tail", alice.email, "--json"])
        let texts = jsonLines(tail.out).filter { $0["type"] as? String == "message" }.compactMap { $0["text"] as? String }
        #expect(texts == (11...60).map { "m\($0)" })
    }
}
