import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import HTTPTypes
import NexusWire
import Testing

@testable import NexusServer

/// GET /v1/search on both backends (NEXUS_TEST_POSTGRES): the query syntax against the
/// real index, the filters, paging, and that the index follows edits and deletes.
struct SearchTests {
    static let texts = [
        "Lunch at the Café tomorrow?", "Sure, the cafe near the deploy pipeline", "東京タワーに行った 🎉 party",
        "deployment failed: error 42 in stage two", "ERROR: 42 is not the answer", "naïve résumé attached",
        "mail alice@example.com about it",
    ]

    func search(_ api: API, _ token: String, _ query: String, _ extra: String = "") async throws -> SearchResponse {
        let q = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let response = try await api.call(.get, "/v1/search?q=\(q)\(extra)", token: token)
        try #require(response.status == .ok, "search answered \(response.status): \(response.text)")
        return try decode(SearchResponse.self, response)
    }

    @Test func queriesFindWhatTheySay() async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            var ids: [Int64] = []
            for (i, text) in Self.texts.enumerated() {
                ids.append(try await api.send(i % 2 == 0 ? alice.token : bob.token, to: conversation, localId: "m\(i)", text: text).response.message.id)
            }
            func found(_ query: String) async throws -> [Int64] {
                try await search(api, bob.token, query).hits.map(\.message.id)
            }
            #expect(try await found("cafe") == [ids[1], ids[0]])
            #expect(try await found("CAFÉ") == [ids[1], ids[0]])
            #expect(try await found("cafe -lunch") == [ids[1]])
            #expect(try await found("deploy*") == [ids[3], ids[1]])
            #expect(try await found("deploy") == [ids[1]])
            #expect(try await found(#""error 42""#) == [ids[4], ids[3]])
            #expect(try await found(#""42 error""#) == [])
            #expect(try await found(#"error -"stage two""#) == [ids[4]])
            #expect(try await found("naive resume") == [ids[5]])
            #expect(try await found("東京") == [ids[2]])
            #expect(try await found("タワー") == [ids[2]])
            #expect(try await found("🎉") == [ids[2]])
            #expect(try await found("🎉 -party") == [])
            #expect(try await found("example") == [ids[6]])
            #expect(try await found("nothing-like-this") == [])
        }
    }

    @Test func filtersAndPagesReturnEachHitOnce() async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            let carol = try await api.register("carol@example.com")
            let other = try await api.openDirect(carol.token, with: "bob@example.com").conversation.id
            var expected: [Int64] = []
            for i in 0..<7 {
                expected.append(try await api.send(alice.token, to: conversation, localId: "a\(i)", text: "report \(i)").response.message.id)
                expected.append(try await api.send(carol.token, to: other, localId: "c\(i)", text: "report from carol \(i)").response.message.id)
            }
            var seen: [Int64] = []
            var page: String? = nil
            repeat {
                let answer = try await search(api, bob.token, "report", "&limit=3" + (page.map { "&page=\($0)" } ?? ""))
                #expect(answer.hits.count <= 3)
                seen += answer.hits.map(\.message.id)
                page = answer.next
            } while page != nil
            #expect(seen == expected.reversed())

            let inOne = try await search(api, bob.token, "report", "&in=\(conversation)").hits.map(\.message.conversationId)
            #expect(inOne.count == 7 && Set(inOne) == [conversation])
            let fromCarol = try await search(api, bob.token, "report", "&from=CAROL%40example.com").hits.map(\.message.senderId)
            #expect(fromCarol.count == 7 && Set(fromCarol) == [carol.user.id])

            var ranked: [Int64] = []
            page = nil
            repeat {
                let answer = try await search(api, bob.token, "report carol", "&order=rank&limit=4" + (page.map { "&page=\($0)" } ?? ""))
                ranked += answer.hits.map(\.message.id)
                page = answer.next
            } while page != nil
            #expect(Set(ranked).count == 7 && ranked.count == 7)
        }
    }

    /// The index follows UPDATE and DELETE of messages.text (edits and deletes, which
    /// change the row in place): the old words are gone, the new ones found.
    @Test func theIndexFollowsEditsAndDeletes() async throws {
        try await withStores { api, database in
            let (alice, bob, conversation) = try await api.pair()
            let first = try await api.send(alice.token, to: conversation, localId: "e1", text: "the old wording").response.message.id
            let second = try await api.send(alice.token, to: conversation, localId: "e2", text: "wording to delete").response.message.id
            let third = try await api.send(alice.token, to: conversation, localId: "e3", text: "wording gone for good").response.message.id
            try await database.execute("UPDATE messages SET text = \(database.literal("a new phrasing")) WHERE id = \(first)")
            try await database.execute("UPDATE messages SET text = \(database.literal("")) WHERE id = \(second)")
            try await database.execute("DELETE FROM events WHERE ref_id = \(third)")
            try await database.execute("DELETE FROM messages WHERE id = \(third)")
            #expect(try await search(api, bob.token, "wording").hits.isEmpty)
            #expect(try await search(api, bob.token, "phrasing").hits.map(\.message.id) == [first])
            #expect(try await search(api, bob.token, "delete").hits.isEmpty)
        }
    }

    /// nexusd in-process on a fresh database, with a way to change rows behind its back.
    func withStores(_ body: @Sendable (API, RawDatabase) async throws -> Void) async throws {
        let (config, cleanUp) = try testConfig(ServerLimits())
        defer { cleanUp() }
        let stores: Stores
        if PostgresURL.isPostgres(config.databasePath) {
            stores = try await NexusServer.PostgresDatabase.stores(url: config.databasePath, logger: Logger(label: "test"))
        } else {
            try FileManager.default.createDirectory(
                atPath: (config.databasePath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            stores = try await NexusServer.SQLiteDatabase.stores(path: config.databasePath, logger: Logger(label: "test"))
        }
        try await stores.database.migrate()
        let services = AppServices(stores: stores, passwords: Passwords(cost: 4))
        let app = Application(router: buildRouter(services))
        do {
            try await app.test(.router) { client in try await body(API(client: client), RawDatabase(database: stores.database)) }
        } catch {
            try? await stores.database.close()
            throw error
        }
        try await stores.database.close()
    }
}

/// Plain SQL on either backend, for tests that change rows as other code paths would.
struct RawDatabase: Sendable {
    let database: any Database

    /// A text value for messages.text: BYTEA on PostgreSQL.
    func literal(_ text: String) -> String {
        let quoted = "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        return database is NexusServer.PostgresDatabase ? "convert_to(\(quoted), 'UTF8')" : quoted
    }

    func execute(_ sql: String) async throws {
        if let pg = database as? NexusServer.PostgresDatabase {
            _ = try await pg.rows(PostgresQuery(unsafeSQL: sql))
        } else if let lite = database as? NexusServer.SQLiteDatabase {
            _ = try await lite.writer.perform { try await $0.query(sql) }
        }
    }
}
