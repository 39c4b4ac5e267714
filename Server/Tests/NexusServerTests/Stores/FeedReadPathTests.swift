import Foundation
import Logging
import NexusWire
import Testing

@testable import NexusServer

/// The feed's pages come from the kept-statement reader on a database file, and from
/// SQLiteNIO's rows in memory, where there is none (SQLiteDatabase.readKept): every kind
/// of event reads alike on both.
@Suite(.timeLimit(.minutes(2)))
struct FeedReadPathTests {
    /// What a page says, without ids and times, which differ between two databases.
    private static func summary(_ events: [SyncEvent]) -> [String] {
        events.map { e in
            var parts = ["\(e.type)"]
            if let m = e.message {
                parts += ["seq \(m.seq)", m.localId, m.text, "reply \(m.replyTo ?? 0)", "edited \(m.editedAt != nil)", "deleted \(m.deletedAt != nil)"]
                parts += (m.reactions ?? []).map { "\($0)" }
            }
            if let c = e.change { parts += ["change \(c.kind) \(c.seq)", c.emoji ?? "", c.text ?? ""] }
            if let r = e.receipt { parts += ["receipt \(r.kind) \(r.seq)"] }
            if let c = e.conversation { parts += ["conversation \(c.kind) \(c.members.count)"] }
            return parts.joined(separator: " | ")
        }
    }

    private static func page(databasePath: String?) async throws -> [String] {
        var (config, cleanUp) = try testConfig(ServerLimits())
        defer { cleanUp() }
        if let databasePath { config.databasePath = databasePath }
        let app = try await buildApplication(config)
        return try await app.test(.router) { client in
            let api = API(client: client)
            let (alice, bob, conversation) = try await api.pair()
            for i in 1...3 { _ = try await api.send(alice.token, to: conversation, localId: "m-\(i)", text: "text \(i)") }
            let changes = ChangesRequest(changes: [
                ChangeItem(localId: "c1", kind: .edit, conversationId: conversation, seq: 1, text: "edited"),
                ChangeItem(localId: "c2", kind: .react, conversationId: conversation, seq: 2, emoji: "👍"),
                ChangeItem(localId: "c3", kind: .delete, conversationId: conversation, seq: 3),
            ])
            #expect(try await api.call(.post, "/v1/messages/changes", token: alice.token, json: changes).status == .ok)
            let receipts = try await api.call(
                .post, "/v1/conversations/\(conversation)/receipts", token: bob.token, json: ReceiptsRequest(delivered: 3, read: 2))
            #expect(receipts.status == .ok || receipts.status == .noContent)
            let feed = try await api.sync(alice.token, query: "after=0")
            // A page of one, and a conversation's page, take the same path.
            let first = try await api.sync(alice.token, query: "after=0&conversation=\(conversation)")
            #expect(first.events.map(\.id) == feed.events.map(\.id))
            return Self.summary(feed.events)
        }
    }

    @Test func aFileAndMemoryReadTheSameFeed() async throws {
        let onFile = try await Self.page(databasePath: nil)
        let inMemory = try await Self.page(databasePath: ":memory:")
        #expect(onFile.count >= 8, "\(onFile)")
        #expect(onFile == inMemory)
    }

    /// Kept means prepared once: SQLite re-prepares a statement at each new binding of some
    /// parameters (SQLiteFeedStore.events says which), which would undo keeping it. The
    /// feed's pages, the polls' cursor checks and the conversation list are read on kept
    /// statements: after a first use of each, more uses with other binds re-prepare nothing.
    @Test func keptStatementsAreNotPreparedAgain() async throws {
        // The kept-statement readers are SQLite's.
        if onPostgres { return }
        let (config, cleanUp) = try testConfig(ServerLimits())
        defer { cleanUp() }
        let app = try await buildApplication(config)
        let (alice, bob, conversation) = try await app.test(.router) { client in
            let api = API(client: client)
            let (alice, bob, conversation) = try await api.pair()
            for i in 1...3 { _ = try await api.send(alice.token, to: conversation, localId: "m-\(i)") }
            // Two conversations each, so their lists are read in halves too.
            let carol = try await api.register("carol@example.com")
            let group = try await api.call(
                .post, "/v1/conversations", token: alice.token,
                json: CreateConversationRequest(kind: .group, members: [bob.user.email, carol.user.email], name: "Two"))
            #expect(group.status == .created, "\(group.text)")
            return (alice.user.id, bob.user.id, conversation)
        }
        let db = try await SQLiteDatabase.open(path: config.databasePath, logger: Logger(label: "test"))
        let conversations = SQLiteConversationStore(db: db)
        let feed = SQLiteFeedStore(db: db, conversations: conversations)
        let readers = [try #require(db.feedReader), try #require(db.listReader), try #require(db.listHelper)]
        var read = 0, checked = 0
        func round(_ viewers: [Int64], cursors: ClosedRange<Int64>) async throws {
            for viewer in viewers {
                for after in cursors {
                    for conversationId in [nil, conversation] {
                        read += try await feed.events(viewer: viewer, after: after, conversationId: conversationId, limit: 500).count
                        if after > 0 { checked += try await feed.eventToCheck(id: after, conversationId: conversationId) == nil ? 0 : 1 }
                    }
                }
                for halvesFrom in [Int.max, 0] {
                    _ = try await conversations.conversationListJSON(viewer: viewer, allowed: nil, present: { $0 }, halvesFrom: halvesFrom)
                }
            }
        }
        // Twice: the list's BEGIN, prepared before the schema was first read, is re-prepared
        // once at its second use.
        try await round([alice], cursors: 0...0)
        try await round([alice], cursors: 0...0)
        var first: [Int] = []
        for reader in readers { first.append(try await reader.run { $0.reprepares }) }
        try await round([bob, alice, bob], cursors: 0...3)
        #expect(read > 0 && checked > 0)
        for (reader, before) in zip(readers, first) {
            let now = try await reader.run { $0.reprepares }
            #expect(now == before, "re-prepared \(now - before) times")
        }
        try await db.close()
    }
}
