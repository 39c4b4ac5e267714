import Foundation
import NexusCore
import Testing

/// What acts on a member's behalf has at most their rights: once Alice is out of a group,
/// her bot, her incoming hook and her outgoing hook are out too (docs/protocol.md,
/// "Bots and hooks follow their owner"). On both backends.
@Suite(.serialized, .harness)
struct DelegateAccessTests {
    static let reason = "its owner is no longer a member of this conversation"

    struct Setup {
        var server: TestServer
        var alice: User, bob: User
        var group: String
        var botToken: String
        var incomingURL: String
    }

    /// Alice, Bob and Carol in a group with Alice's bot, her incoming hook and her outgoing
    /// hook to `receiver`.
    static func setUp(receiver: WebhookReceiver) throws -> Setup {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        let carol = try User("carol", server: server.url)
        try carol.register(name: "Carol")
        let made = try alice.run(["bot", "create", "reader-bot", "--scope", "all", "--json"]).decode(CreatedToken.self)
        let group = try AccessTokenTests.open(alice, [bob.email, carol.email, made.user.email])
        let incoming = try alice.run(["hook", "create", group, "--name", "alerts"])
        #expect(incoming.code == 0, "\(incoming.err)")
        let out = try alice.run(["hook", "create", group, "--url", receiver.url, "--name", "ci", "--json"])
        #expect(out.code == 0, "\(out.err)")
        let secret = try #require(try JSONSerialization.jsonObject(with: Data(out.out.utf8)) as? [String: Any])["secret"] as? String
        try #require(secret).write(toFile: receiver.secretFile, atomically: true, encoding: .utf8)
        return Setup(
            server: server, alice: alice, bob: bob, group: group, botToken: made.token,
            incomingURL: incoming.out.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func aRemovedMembersBotAndHooksLoseTheGroup() throws {
        let receiver = try WebhookReceiver(failFirst: 0)
        let s = try Self.setUp(receiver: receiver)
        defer { s.server.stop() }
        let messages = s.server.url + "/v1/conversations/\(s.group)/messages"
        // Before: everything Alice set up works.
        #expect(try AccessTokenTests.curl("GET", messages, token: s.botToken).status == 200)
        #expect(try curl(s.incomingURL, ["-d", "before"]).status == 201)
        #expect(try s.bob.run(["send", s.group, "hello ci"]).code == 0)
        #expect(receiver.wait(timeout: 30) { $0.contains { $0.text == "hello ci" } }, "the hook never delivered")

        #expect(try s.bob.run(["remove", s.group, s.alice.email]).code == 0)
        // Bob's own hook to a second receiver shows when a message would have gone out.
        let bobs = try WebhookReceiver(failFirst: 0)
        let bobHook = try s.bob.run(["hook", "create", s.group, "--url", bobs.url, "--name", "bobs", "--json"])
        let bobSecret = try JSONSerialization.jsonObject(with: Data(bobHook.out.utf8)) as? [String: Any]
        try #require(bobSecret?["secret"] as? String).write(toFile: bobs.secretFile, atomically: true, encoding: .utf8)

        #expect(try AccessTokenTests.curl("GET", messages, token: s.botToken).status == 404)
        let posted = try curl(s.incomingURL, ["-d", "after removal"])
        #expect(posted.status == 404, "\(posted.body)")
        #expect(try s.bob.run(["send", s.group, "after removal"]).code == 0)
        #expect(bobs.wait(timeout: 30) { $0.contains { $0.text == "after removal" } }, "Bob's hook never delivered")
        #expect(!receiver.requests.contains { $0.text == "after removal" }, "\(receiver.requests)")
        #expect(!(try s.bob.run(["history", s.group]).out.contains("alerts [bot]: after removal")))

        let list = try s.alice.run(["hook", "list"])
        #expect(list.out.contains("disabled: \(Self.reason)"), "\(list.out)")
        let hooks = try s.alice.run(["hook", "list", "--json"]).decode(HooksResponse.self).hooks
        #expect(hooks.count == 2 && hooks.allSatisfy { $0.disabledReason == Self.reason }, "\(hooks)")
        #expect(try s.alice.run(["hook", "deliveries", "ci", "--json"]).decode(HookDeliveriesResponse.self).hook.pending == 0)
    }

    @Test func aMemberWhoLeavesTakesTheirBotAlong() throws {
        let receiver = try WebhookReceiver(failFirst: 0)
        let s = try Self.setUp(receiver: receiver)
        defer { s.server.stop() }
        let messages = s.server.url + "/v1/conversations/\(s.group)/messages"
        #expect(try AccessTokenTests.curl("GET", messages, token: s.botToken).status == 200)
        #expect(try s.alice.run(["leave", s.group]).code == 0)
        #expect(try AccessTokenTests.curl("GET", messages, token: s.botToken).status == 404)
        #expect(try curl(s.incomingURL, ["-d", "after leaving"]).status == 404)
        let members = try s.bob.run(["members", s.group])
        #expect(!members.out.contains("reader-bot") && !members.out.contains("alerts"), "\(members.out)")
    }
}

/// An incoming hook's bot is a member: it counts toward `--max-group-members`, and a
/// person added after it is counted with it.
@Suite(.serialized, .harness)
struct HookBotLimitTests {
    @Test func hookBotsCountTowardTheMemberLimit() throws {
        let server = try TestServer(extraArguments: ["--max-group-members", "5"])
        defer { server.stop() }
        let (alice, bob, carol) = try server.trio()
        let dave = try User("dave", server: server.url)
        try dave.register(name: "Dave")
        let group = try AccessTokenTests.open(alice, [bob.email, dave.email])
        // The member list is read (and cached) before the hook's bot joins.
        #expect(try alice.run(["members", group]).code == 0)
        #expect(try alice.run(["hook", "create", group, "--name", "one"]).code == 0)
        #expect(try alice.run(["hook", "create", group, "--name", "two"]).code == 0)
        let third = try alice.run(["hook", "create", group, "--name", "three"])
        #expect(third.code != 0 && third.err.contains("--max-group-members"), "\(third.code) \(third.err)")
        let added = try alice.run(["add", group, carol.email])
        #expect(added.code != 0 && added.err.contains("--max-group-members"), "a person past the limit: \(added.out) \(added.err)")
        let members = try alice.run(["members", group, "--json"])
        #expect(members.out.components(separatedBy: "\"email\"").count - 1 == 5, "\(members.out)")
    }

    /// With replicas, a hook's bot that joined through one counts on the others at once. They
    /// keep no member cache today (AppServices.membership asks the database); the bot's join
    /// sends the members note a person's does, and this holds should they gain one.
    @Test(.enabled(if: Backend.postgres != nil, "needs PostgreSQL: run under Tests/scripts/with-postgres.sh"))
    func aHookBotsJoinReachesTheOtherReplicas() throws {
        let a = try TestServer(extraArguments: ["--max-group-members", "4"])
        defer { a.stop() }
        let b = try TestServer(database: a.databasePath, extraArguments: ["--max-group-members", "4"])
        defer { b.stop() }
        let (alice, bob, carol) = try a.trio()
        let dave = try User("dave", server: a.url)
        try dave.register(name: "Dave")
        let group = try AccessTokenTests.open(alice, [bob.email, dave.email])
        var onB = alice
        onB.server = b.url
        // B checks (and caches) the three members for a send before the bot joins through A.
        #expect(try onB.run(["send", group, "hello"]).code == 0)
        #expect(try alice.run(["hook", "create", group, "--name", "one"]).code == 0)
        let added = try onB.run(["add", group, carol.email])
        #expect(added.code != 0 && added.err.contains("--max-group-members"), "a person past the limit through B: \(added.code) \(added.out) \(added.err)")
        #expect(try onB.run(["members", group, "--json"]).out.components(separatedBy: "\"email\"").count - 1 == 4)
    }
}
