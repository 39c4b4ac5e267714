import Foundation
import Testing

/// Sending to a group you left, or were removed from, says so and how to get back in, from
/// what the profile's cache kept; the server still answers "not found" and tells a stranger
/// nothing. Refused at once (exit 3), nothing is kept in the outbox.
@Suite(.harness)
struct FormerMemberSendTests {
    @Test func sendingToAGroupYouLeftSaysYouLeft() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, carol) = try server.trio()
        let dave = try User("dave", server: server.url)
        try dave.register(name: "Dave")
        let created = try alice.run(["new", bob.email, carol.email, "--name", "Ops", "--json"])
        let id = String(try #require(try created.decode(Created.self).conversation.id, "\(created.err)"))
        try #require(try alice.run(["send", id, "hello"]).code == 0)
        for u in [bob, carol] { try #require(try u.run(["history", id]).code == 0) }

        try #require(try bob.run(["leave", id]).code == 0)
        let left = try bob.run(["send", id, "still here?"])
        #expect(left.code == 3, "\(left.err)")
        #expect(left.err.contains("error: you left \"Ops\" (conversation \(id)) at \(id)/"), "\(left.err)")
        #expect(left.err.contains("`nexusctl add \(id) \(bob.email)`"), "\(left.err)")
        #expect(!left.err.contains("Conversation not found"), "\(left.err)")
        #expect(try bob.run(["queue", "--json"]).out.trimmingCharacters(in: .whitespacesAndNewlines) == "[]", "nothing kept")

        try #require(try alice.run(["remove", id, carol.email]).code == 0)
        let removed = try carol.run(["send", id, "hi"])
        #expect(removed.code == 3, "\(removed.err)")
        #expect(removed.err.contains("you are no longer a member of \"Ops\" (conversation \(id))"), "\(removed.err)")
        #expect(removed.err.contains("ask a member (Alice"), "\(removed.err)")
        #expect(try carol.run(["queue", "--json"]).out.trimmingCharacters(in: .whitespacesAndNewlines) == "[]", "nothing kept")

        // Someone who never was a member learns nothing new.
        let stranger = try dave.run(["send", id, "hi"])
        #expect(stranger.code == 3, "\(stranger.err)")
        #expect(stranger.err.contains("Conversation not found"), "\(stranger.err)")
        #expect(!stranger.err.contains("Ops") && !stranger.err.contains("member"), "\(stranger.err)")
    }

    struct Created: Decodable {
        struct Conversation: Decodable { var id: Int64 }
        var conversation: Conversation
    }
}
