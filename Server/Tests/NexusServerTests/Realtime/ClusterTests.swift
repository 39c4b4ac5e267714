import NexusWire
import Testing

@testable import NexusServer

/// The pieces of the PostgreSQL backend that need no database: notes between replicas and
/// the connection URL. The backend itself runs under the integration suite's PostgreSQL pass.
struct ClusterTests {
    @Test func notesSurviveTheirPayloadAndOwnNotesAreSkipped() {
        let typing = ClusterNote.typing(Typing(conversationId: 7, userId: 3, until: Timestamp(milliseconds: 1_700_000_000_123)))
        for note in [ClusterNote.feed(conversationIds: [1, 22, 333]), typing, .members(conversationIds: [4]), .wake(users: [5, 66])] {
            let payload = note.payload(origin: "abc")!
            #expect(ClusterNote(payload: payload, skipping: "xyz") == note)
            #expect(ClusterNote(payload: payload, skipping: "abc") == nil)
        }
        #expect(ClusterNote.reconnected.payload(origin: "abc") == nil)
    }

    @Test(arguments: ["", "abc", "abc f", "abc f ,", "abc t 1 2", "abc t 1 x 3", "abc q 1", "abc f 1 2", "abc w", "abc w ,"])
    func malformedPayloadsAreIgnored(_ payload: String) {
        #expect(ClusterNote(payload: payload, skipping: "other") == nil)
    }

    @Test func feedAndWakePayloadsStayUnderPostgresLimit() {
        let many = (1...5000).map { Int64.max - $0 }
        for payloads in [ClusterNote.feedPayloads(origin: "origin", conversationIds: many), ClusterNote.wakePayloads(origin: "origin", users: many)] {
            #expect(payloads.count > 1)
            #expect(payloads.allSatisfy { $0.utf8.count < 8000 })
            let ids = payloads.flatMap { p -> [Int64] in
                switch ClusterNote(payload: p, skipping: "me") {
                case .feed(let ids), .wake(let ids): ids
                default: []
                }
            }
            #expect(ids == many)
        }
    }

    @Test func postgresURLs() throws {
        let tcp = try PostgresURL("postgres://nexus:p%40ss@db.internal:6543/chat?sslmode=require")
        #expect(tcp.username == "nexus")
        #expect(tcp.password == "p@ss")
        #expect(tcp.database == "chat")
        #expect(tcp.tls == .require)
        guard case .tcp(let host, let port) = tcp.endpoint else { Issue.record("not tcp"); return }
        #expect(host == "db.internal" && port == 6543)

        let socket = try PostgresURL("postgresql://nexus@/chat?host=/run/postgresql")
        guard case .socket(let path) = socket.endpoint else { Issue.record("not a socket"); return }
        #expect(path == "/run/postgresql/.s.PGSQL.5432")
        #expect(socket.tls == .prefer)

        #expect(throws: PostgresURL.Invalid.self) { try PostgresURL("mysql://x@y/z") }
        #expect(throws: PostgresURL.Invalid.self) { try PostgresURL("postgres://x@y/z?sslmode=sometimes") }
        #expect(PostgresURL.redacted("postgres://nexus:secret@h/db") == "postgres://nexus:xxx@h/db")
        #expect(!PostgresURL.redacted("postgres://nexus:secret@h/db").contains("secret"))
    }
}
