import Foundation
import NexusCore
import Testing

/// A message queued offline goes only as the account that queued it, whoever runs the
/// next flush of the profile: a person's session and a bot's `$NEXUS_TOKEN` sharing one
/// profile never send each other's messages. Real nexusd, real nexusctl processes.
@Suite(.harness)
struct OutboxAuthorTests {
    struct Author: Decodable { var userId: Int64?; var email: String?; var tokenHash: String? }
    struct Entry: Decodable { var localId: String; var text: String; var status: String; var author: Author? }

    /// alice and bob, and alice's bot, in one group; the bot runs in alice's profile.
    func setUp() throws -> (TestServer, User, User, Int64, CreatedToken, String) {
        let server = try TestServer()
        let (alice, _) = try server.pair()
        let made = try alice.run(["bot", "create", "deploy-bot", "--scope", "send", "--json"]).decode(CreatedToken.self)
        let group = try alice.run(["new", "bob@example.com", made.user.email, "--json"])
        let id = String(try group.decode(ConversationResponse.self).conversation.id)
        var bot = User(copying: alice, home: alice.home)
        bot.extraEnvironment["NEXUS_TOKEN"] = made.token
        let aliceId = try alice.run(["whoami", "--json"]).decode(AccountJSON.self).user.id
        return (server, alice, bot, aliceId, made, id)
    }

    func offline(_ user: User) -> User {
        var u = user
        u.server = "http://127.0.0.1:9"
        return u
    }

    /// Who sent each text, as the server has it.
    func senders(_ alice: User) throws -> [String: Int64] {
        Dictionary(try alice.serverMessages().map { ($0.text, $0.senderId) }, uniquingKeysWith: { a, _ in a })
    }

    @Test func eachQueuedMessageGoesOnlyAsItsAuthor() throws {
        let (server, alice, bot, aliceId, made, group) = try setUp()
        defer { server.stop() }
        #expect(try offline(alice).run(["send", group, "from alice"]).code == 75)
        #expect(try offline(bot).run(["send", group, "from the bot"]).code == 75)

        let listed = try alice.run(["queue", "--json"]).decode([Entry].self)
        let byText = Dictionary(uniqueKeysWithValues: listed.map { ($0.text, $0) })
        #expect(byText["from alice"]?.author?.userId == aliceId)
        #expect(byText["from alice"]?.author?.email == alice.email)
        let botAuthor = try #require(byText["from the bot"]?.author)
        #expect(botAuthor.userId == nil && botAuthor.tokenHash?.count == 64, "a token's hash, never the token")
        let file = try String(contentsOfFile: alice.home + "/default/outbox.jsonl", encoding: .utf8)
        #expect(!file.contains(made.token))

        // The bot flushes first: only its own message goes, and says for whom the rest waits.
        let botFlush = try bot.run(["queue", "flush", "--now"])
        #expect(botFlush.code == 0, "\(botFlush.err)")
        #expect(botFlush.out.contains("sent 1, queued 0"), "\(botFlush.out)")
        #expect(botFlush.err.contains("1 queued message(s) wait for \(alice.email)"), "\(botFlush.err)")
        #expect(try senders(alice) == ["from the bot": made.user.id])
        let text = try alice.run(["queue"]).out
        #expect(text.contains("BY") && text.contains(alice.email), "\(text)")

        // Alice's own flush sends hers, as hers.
        #expect(try alice.run(["queue", "flush", "--now"]).code == 0)
        #expect(try senders(alice) == ["from the bot": made.user.id, "from alice": aliceId])
        #expect(try alice.outboxEntries().isEmpty)
    }

    /// The bot's message queued offline, then a `send` of alice's: hers goes, the bot's
    /// stays for the bot, and is not sent as hers.
    @Test func aSendOfAnotherAccountLeavesTheBotsMessageQueued() throws {
        let (server, alice, bot, aliceId, made, group) = try setUp()
        defer { server.stop() }
        #expect(try offline(bot).run(["send", group, "from the bot"]).code == 75)
        let sent = try alice.run(["send", group, "from alice"])
        #expect(sent.code == 0, "\(sent.err)")
        #expect(try senders(alice) == ["from alice": aliceId])
        #expect(try alice.outboxEntries().map(\.text) == ["from the bot"])
        #expect(try bot.run(["queue", "flush", "--now"]).code == 0)
        #expect(try senders(alice) == ["from alice": aliceId, "from the bot": made.user.id])
    }

    /// A record of an older nexusctl (no author) is the profile's account's: the bot's
    /// flush leaves it, alice's sends it.
    @Test func aRecordWithoutAuthorGoesAsTheProfilesAccount() throws {
        let (server, alice, bot, aliceId, _, group) = try setUp()
        defer { server.stop() }
        #expect(try offline(alice).run(["send", group, "old record"]).code == 75)
        // As an older nexusctl wrote it: the same record without its author.
        let path = alice.home + "/default/outbox.jsonl"
        let written = try String(contentsOfFile: path, encoding: .utf8)
        let old = written.replacingOccurrences(of: #",?"author(Email)?":("[^"]*"|[0-9]+)"#, with: "", options: .regularExpression)
        #expect(old != written && !old.contains("author"))
        try old.write(toFile: path, atomically: true, encoding: .utf8)
        let botFlush = try bot.run(["queue", "flush", "--now"])
        #expect(botFlush.out.contains("sent 0"), "\(botFlush.out) \(botFlush.err)")
        #expect(try senders(alice)["old record"] == nil)
        let flush = try alice.run(["queue", "flush", "--now"])
        #expect(flush.code == 0, "\(flush.out) \(flush.err)")
        #expect(try senders(alice)["old record"] == aliceId)
    }
}
