import Foundation
import HTTPTypes
import HummingbirdTesting
import NexusWire
import Testing

@testable import NexusServer

/// The bounds of docs/protocol.md ("Limits"), each reached. The 512 KiB body limit is
/// in MessagesControllerTests.
struct LimitsTests {
    @Test func jsonNestedDeeperThanTheLimitIsRefusedBeforeDecoding() async throws {
        try await withServer { api in
            let (alice, _, conversation) = try await api.pair()
            func body(depth: Int, id: String) -> String {
                // The object itself is one level; the unknown field holds the rest.
                #"{"localId":"\#(id)","text":"hi","x":"# + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}"
            }
            let path = "/v1/conversations/\(conversation)/messages"
            let atLimit = try await api.call(.post, path, token: alice.token, raw: body(depth: ServerLimits.maxJSONDepth, id: "a"))
            #expect(atLimit.status == .created)
            let over = try await api.call(.post, path, token: alice.token, raw: body(depth: ServerLimits.maxJSONDepth + 1, id: "b"))
            try expectError(over, .badRequest, code: "too_deep")
            let huge = try await api.call(.post, path, token: alice.token, raw: String(repeating: "[", count: 400_000))
            try expectError(huge, .badRequest, code: "too_deep")
            // Brackets inside strings are text, not nesting.
            let text = String(repeating: "[{", count: 1000)
            let inString = try await api.call(.post, path, token: alice.token, json: SendRequest(localId: "c", text: text))
            #expect(inString.status == .created)
        }
    }

    @Test func longPollsPerUserAreBounded() async throws {
        var limits = ServerLimits()
        limits.pollsPerUser = 2
        try await withServer(limits: limits) { api in
            let (alice, bob, conversation) = try await api.pair()
            let head = try await api.sync(bob.token, query: "last=0").cursor
            try await withThrowingTaskGroup(of: TestResponse.self) { polls in
                // Three long polls with nothing to wait for: two wait, so the first to come
                // back, whichever it is, is the one refused.
                for _ in 0..<3 { polls.addTask { try await api.call(.get, "/v1/sync?after=\(head)&wait=30", token: bob.token) } }
                let refused = try #require(try await polls.next())
                try expectError(refused, .tooManyRequests, code: "too_many_polls")
                #expect(refused.headers[.retryAfter] == "5")
                // A poll that does not wait, and another user's long poll, still go through.
                #expect(try await api.call(.get, "/v1/sync?after=\(head)", token: bob.token).status == .ok)
                polls.addTask { try await api.call(.get, "/v1/sync?after=\(head)&wait=30", token: alice.token) }
                try await api.send(alice.token, to: conversation, localId: "wake")
                for try await answer in polls { #expect(answer.status == .ok, "\(answer.text)") }
            }
            // The slots are given back.
            #expect(try await api.call(.get, "/v1/sync?after=\(head)&wait=1", token: bob.token).status == .ok)
        }
    }

    @Test func oversizedHeadersAreRefusedAndTheConnectionClosed() async throws {
        try await withServer(mode: .live) { api in
            let port = try #require(api.client.port)
            func answer(_ headers: [String]) async throws -> String {
                let connection = try RawConnection(port: port)
                connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n")
                return try #require(await connection.readUntilClosed(timeout: 5), "the server kept the connection open")
            }
            let limits = ServerLimits()
            let field = String(repeating: "a", count: limits.maxHeaderFieldBytes / 2)
            // Within bounds: answered (then closed by us only because nothing else is sent).
            let fine = try RawConnection(port: port)
            fine.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: \(field)\r\nConnection: close\r\n\r\n")
            #expect(await fine.readUntilClosed(timeout: 5)?.hasPrefix("HTTP/1.1 200") == true)
            // One field over its limit, all fields over theirs, too many fields.
            #expect(try await answer(["X-A: " + field + field + "a"]).hasPrefix("HTTP/1.1 400"))
            #expect(try await answer((0..<5).map { "X-\($0): " + field }).hasPrefix("HTTP/1.1 400"))
            #expect(try await answer((0...limits.maxHeaderCount).map { "X-\($0): 1" }).hasPrefix("HTTP/1.1 400"))
        }
    }

    @Test func idleConnectionsAreClosedButLongPollsAreNot() async throws {
        var limits = ServerLimits()
        limits.idleTimeoutSeconds = 1
        try await withRawServer(limits: limits) { port in
            let silent = try RawConnection(port: port)
            let started = Date()
            #expect(await silent.readUntilClosed(timeout: 5) == "")
            #expect(Date().timeIntervalSince(started) >= 0.9)
            // A request sent halfway and then left is idle too.
            let slow = try RawConnection(port: port)
            slow.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
            #expect(await slow.readUntilClosed(timeout: 5) == "")
            // A long poll waiting longer than the idle time is a request in progress.
            let token = try await RawConnection.register(port: port)
            let poll = try RawConnection(port: port)
            poll.send("GET /v1/sync?after=0&wait=3 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
            let answered = try #require(await poll.readUntilClosed(timeout: 10))
            #expect(answered.hasPrefix("HTTP/1.1 200"))
            #expect(Date().timeIntervalSince(started) >= 3)
        }
    }

    /// A sync page is bounded in bytes as well as in events: a feed of large messages comes in
    /// several pages, each under the bound (or one event alone), every event once, in order.
    @Test func aSyncPageEndsAtItsByteBound() async throws {
        var limits = ServerLimits()
        limits.maxSyncPageBytes = 4000
        let bound = limits.maxSyncPageBytes
        try await withServer(limits: limits) { api in
            let (alice, bob, conversation) = try await api.pair()
            let big = String(repeating: "x", count: 1000)
            for i in 1...12 { try await api.send(alice.token, to: conversation, localId: "m\(i)", text: "\(i) " + big) }
            try await api.send(alice.token, to: conversation, localId: "huge", text: String(repeating: "y", count: 6000))
            var after: Int64 = 0
            var texts: [String] = []
            var pages = 0
            while true {
                let response = try await api.call(.get, "/v1/sync?after=\(after)", token: bob.token)
                let page = try decode(SyncResponse.self, response)
                guard !page.events.isEmpty else { break }
                #expect(response.body.readableBytes <= bound || page.events.count == 1, "\(response.body.readableBytes) bytes")
                texts += page.events.compactMap(\.message?.text)
                after = page.cursor
                pages += 1
            }
            #expect(texts == (1...12).map { "\($0) " + big } + [String(repeating: "y", count: 6000)])
            #expect(pages >= 5, "\(pages) pages")
        }
    }
}
