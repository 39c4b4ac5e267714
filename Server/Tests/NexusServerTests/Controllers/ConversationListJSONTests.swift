import Foundation
import Logging
import NexusWire
import Testing

@testable import NexusServer

/// The conversation list read and written in one pass on SQLite
/// (SQLiteConversationList) answers the same bytes as the list built from models
/// (`conversations(viewer:)`, then `jsonBytes()`), on the hard cases, whether it is read
/// whole or in two halves at once.
@Suite(.timeLimit(.minutes(5)))
struct ConversationListJSONTests {
    @Test func onePassListIsByteForByteTheModelsList() async throws {
        // The one-pass list is SQLite's; on PostgreSQL both are the models' list.
        if onPostgres { return }
        let (config, cleanUp) = try testConfig(ServerLimits())
        defer { cleanUp() }
        let app = try await buildApplication(config)
        let ids = try await app.test(.router) { client in try await Self.fixture(API(client: client)) }

        let db = try await SQLiteDatabase.open(path: config.databasePath, logger: Logger(label: "test"))
        let store = SQLiteConversationStore(db: db)
        #expect(db.listReader != nil)
        try await Self.hardColumns(db, ids: ids)
        // Presence as the server adds it: online for some, a later last seen for others.
        let present: @Sendable (User) -> User = { user in
            var u = user
            u.online = user.id % 2 == 0
            if user.id % 3 == 0 { u.lastSeenAt = Timestamp(milliseconds: 1_700_000_000_123 + user.id) }
            return u
        }
        var compared = 0
        for viewer in ids.users {
            for allowed in [nil, Set([ids.group]), Set([ids.direct, ids.edited]), Set<Int64>()] {
                let models = try await store.listJSONFromModels(viewer: viewer, allowed: allowed, present: present)
                let onePass = try await store.conversationListJSON(viewer: viewer, allowed: allowed, present: present, halvesFrom: .max)
                // Read in two halves at once (SQLiteConversationList+Halves), as a long list is.
                let halves = try await store.conversationListJSON(viewer: viewer, allowed: allowed, present: present, halvesFrom: 0)
                #expect(halves == onePass, "viewer \(viewer) in halves, allowed \(allowed.map { "\($0.sorted())" } ?? "all")")
                #expect(
                    String(decoding: onePass, as: UTF8.self) == String(decoding: models, as: UTF8.self),
                    "viewer \(viewer), allowed \(allowed.map { "\($0.sorted())" } ?? "all")")
                // And the same value as Codable decodes it (the bytes are one encoding of it).
                let decoded = try JSONDecoder().decode(ConversationsResponse.self, from: Data(onePass))
                #expect(decoded == (try JSONDecoder().decode(ConversationsResponse.self, from: Data(models))))
                compared += 1
            }
        }
        // The fixture holds what it should: the viewer alice sees all five, with every kind of last message.
        let alice = try JSONDecoder().decode(
            ConversationsResponse.self,
            from: Data(try await store.conversationListJSON(viewer: ids.users[0], allowed: nil, present: present)))
        #expect(alice.conversations.count == 5)
        #expect(alice.conversations.contains { $0.lastMessage?.reactions != nil })
        #expect(alice.conversations.contains { $0.lastMessage?.attachments != nil })
        #expect(alice.conversations.contains { $0.lastMessage?.membership != nil })
        #expect(alice.conversations.contains { $0.lastMessage?.deletedAt != nil })
        #expect(alice.conversations.contains { $0.lastMessage == nil })
        #expect(alice.conversations.contains { ($0.lastMessageReadBy ?? 0) > 0 })
        #expect(alice.conversations.contains { $0.unreadCount > 0 })
        #expect(alice.conversations.contains { $0.lastMessageReaders != nil && $0.lastMessageReaders != $0.memberIds.count - 1 })
        #expect(compared == ids.users.count * 4)
        try await db.close()
    }

    struct Ids {
        var users: [Int64]
        var group: Int64
        var direct: Int64
        var edited: Int64
        var reacted: Int64
        var bot: Int64
    }

    /// Five conversations of alice: a group with a membership event last, a direct one with
    /// a text full of escapes and unicode read by bob, one with an edited reply, one with
    /// reactions and files, and one with no message at all; unread messages from others.
    static func fixture(_ api: API) async throws -> Ids {
        let alice = try await api.register("alice@example.com", name: "Ålice \"the\" \\ quoted / 😀")
        let bob = try await api.register("bob@example.com", name: "Bob")
        let carol = try await api.register("carol@example.com", name: "Carol 日本語")
        let dave = try await api.register("dave@example.com", name: "Dave")
        let bot = try await api.register("bot@example.com", name: "Hook bot")
        func makeGroup(_ name: String, _ members: [String]) async throws -> Int64 {
            let response = try await api.call(
                .post, "/v1/conversations", token: alice.token, json: CreateConversationRequest(kind: .group, members: members, name: name))
            try #require(response.status == .created, "group answered \(response.status): \(response.text)")
            return try decode(ConversationResponse.self, response).conversation.id
        }
        let group = try await makeGroup("Group \"ü\" \\ back / slash", ["bob@example.com", "carol@example.com"])
        try await api.send(bob.token, to: group, localId: "g1", text: "from bob")
        try await api.send(alice.token, to: group, localId: "g2", text: "from alice")
        let added = try await api.call(
            .post, "/v1/conversations/\(group)/members", token: alice.token, json: MembershipRequest(localId: "m1", emails: ["dave@example.com"]))
        #expect(added.status == .ok || added.status == .created, "add answered \(added.status)")

        let direct = try await api.openDirect(alice.token, with: "bob@example.com").conversation.id
        let hard = "quote \" backslash \\ slash / newline \n crlf \r\n tab \t control \u{1} \u{1F} del \u{7F} é 😀 \u{2028} 中文"
        let sent = try await api.send(alice.token, to: direct, localId: "d1", text: hard).response.message
        _ = try await api.call(.post, "/v1/conversations/\(direct)/receipts", token: bob.token, json: ReceiptsRequest(delivered: sent.seq, read: sent.seq))

        let edited = try await makeGroup("Edited", ["carol@example.com", "dave@example.com"])
        try await api.send(alice.token, to: edited, localId: "e1", text: "first")
        try await api.send(alice.token, to: edited, localId: "e2", text: "reply, then edited and deleted")

        let reacted = try await makeGroup("Reacted", ["bob@example.com", "bot@example.com"])
        try await api.send(alice.token, to: reacted, localId: "r1", text: "with reactions and files")

        _ = try await makeGroup("Quiet", ["carol@example.com", "dave@example.com"])
        return Ids(users: [alice.user.id, bob.user.id, carol.user.id, dave.user.id, bot.user.id],
                   group: group, direct: direct, edited: edited, reacted: reacted, bot: bot.user.id)
    }

    /// What the HTTP fixture cannot reach quickly, straight into the columns: a reply edited
    /// and deleted, reactions and files, and an incoming hook whose bot is a member.
    static func hardColumns(_ db: SQLiteDatabase, ids: Ids) async throws {
        let reactions = ReactionsColumn.encode([Reaction(emoji: "👍", userIds: [ids.users[1], ids.users[0]]), Reaction(emoji: "\"q\"", userIds: [ids.users[1]])])
        let files = AttachmentColumn.encode([
            Attachment(name: "a \"b\" é.txt", size: 12, type: "text/plain", sha256: String(repeating: "ab", count: 32))])
        try await db.writer.perform(multiStatement: true) { connection in
            _ = try await connection.query(
                "UPDATE messages SET reply_to = 1, edited_at = 1700000000999, deleted_at = 1700000001000 WHERE conversation_id = ? AND seq = 2",
                [.integer(Int(ids.edited))])
            _ = try await connection.query(
                "UPDATE messages SET reactions = ?, attachments = ? WHERE conversation_id = ?",
                [reactions.map { .text($0) } ?? .null, files.map { .text($0) } ?? .null, .integer(Int(ids.reacted))])
            _ = try await connection.query(
                "INSERT INTO hooks (owner_id, conversation_id, name, kind, bot_id, created_at) VALUES (?, ?, 'in', 'incoming', ?, 0)",
                [.integer(Int(ids.users[0])), .integer(Int(ids.reacted)), .integer(Int(ids.bot))])
        }
    }
}
