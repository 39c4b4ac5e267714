import Foundation
import NexusWire
import Testing

@testable import NexusServer

/// Long polls parked in their connections' pipelines (ParkedPoll, ParkingHandler), over
/// keep-alive connections as nexusctl makes them. A test that needs its poll held waits
/// for it (HeldPolls) instead of sleeping.
@Suite(.timeLimit(.minutes(1)))
struct ParkedPollTests {
    init() { HeldPolls.turnOn() }

    static func get(_ uri: String, _ token: String, closing: Bool = false) -> String {
        "GET \(uri) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n" + (closing ? "Connection: close\r\n" : "") + "\r\n"
    }

    /// The answers in `text`, complete ones only: (head, body).
    static func answers(_ text: String) -> [(head: String, body: String)] {
        var found: [(String, String)] = []
        var rest = Substring(text)
        while let end = rest.range(of: "\r\n\r\n") {
            let head = String(rest[..<end.lowerBound])
            guard let length = head.firstMatch(of: /(?i)content-length: (\d+)/).flatMap({ Int($0.1) }) else { break }
            let body = rest[end.upperBound...].utf8.prefix(length)
            guard body.count == length else { break }
            found.append((head, String(decoding: body, as: UTF8.self)))
            rest = rest[body.endIndex...]
        }
        return found
    }

    /// Bob's long poll at the head of his feed, on a connection of its own, with what can
    /// wake it: Alice and their conversation.
    private struct Waiting {
        let poll: RawConnection
        let alice: AuthResponse
        let bob: AuthResponse
        let conversation: Int64
        let head: Int64
    }

    private static func bobWaits(_ api: API, closing: Bool = false) async throws -> Waiting {
        let port = try #require(api.client.port)
        let (alice, bob, conversation) = try await api.pair()
        let head = try await api.sync(bob.token, query: "last=0").cursor
        let poll = try RawConnection(port: port)
        poll.send(get("/v1/sync?after=\(head)&wait=30", bob.token, closing: closing))
        return Waiting(poll: poll, alice: alice, bob: bob, conversation: conversation, head: head)
    }

    @Test func theDateHeaderIsHTTPs() {
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(1_795_951_773) == "Sun, 29 Nov 2026 11:29:33 GMT")
    }

    @Test func aParkedPollIsAnsweredOnItsConnectionAsAPlainPollWouldBe() async throws {
        try await withServer(mode: .live) { api in
            let waiting = try await Self.bobWaits(api)
            let (poll, bob, head) = (waiting.poll, waiting.bob, waiting.head)
            #expect(await poll.drain(for: 0.3) == "", "nothing to answer yet")
            #expect(ParkedPoll.count > 0, "held by its connection, not by a task")
            try await api.send(waiting.alice.token, to: waiting.conversation, localId: "wake", text: "parked hello")
            let text = try #require(await poll.read(timeout: 5) { Self.answers($0).count == 1 })
            let (answerHead, body) = try #require(Self.answers(text).first)
            #expect(answerHead.hasPrefix("HTTP/1.1 200 OK"))
            #expect(answerHead.lowercased().contains("content-type: application/json; charset=utf-8"))
            #expect(answerHead.lowercased().contains("server: nexusd"))
            #expect(answerHead.lowercased().contains("date: "))
            #expect(!answerHead.lowercased().contains("nexus-parked"), "the stand-in's marker never leaves")
            // The same bytes as a poll that did not wait, on the same connection, which stays open.
            poll.send(Self.get("/v1/sync?after=\(head)", bob.token))
            let both = try #require(await poll.read(timeout: 5) { Self.answers($0).count == 1 })
            let parked = try JSONDecoder().decode(SyncResponse.self, from: Data(body.utf8))
            let plain = try JSONDecoder().decode(SyncResponse.self, from: Data(try #require(Self.answers(both).first?.body).utf8))
            #expect(parked.events == plain.events && parked.cursor == plain.cursor && parked.cursorCheck == plain.cursorCheck)
            #expect(parked.events.map(\.message?.text) == ["parked hello"])
        }
    }

    @Test func aRequestSentWhileParkedIsAnsweredAfterThePoll() async throws {
        try await withServer(mode: .live) { api in
            let waiting = try await Self.bobWaits(api)
            let connection = waiting.poll
            await HeldPolls.wait(for: Tokens.hash(waiting.bob.token), .parked)
            // Pipelined behind the held poll: its answer must not overtake the poll's.
            connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await connection.drain(for: 0.5) == "", "answered before the poll it came after")
            try await api.send(waiting.alice.token, to: waiting.conversation, localId: "wake", text: "first in line")
            let text = try #require(await connection.read(timeout: 5) { Self.answers($0).count == 2 })
            let answers = Self.answers(text)
            #expect(answers[0].body.contains("first in line"))
            #expect(!answers[1].body.contains("first in line"))
            #expect(answers[1].head.hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test func aParkedPollWhoseClientLeftGivesBackItsSlot() async throws {
        var limits = ServerLimits()
        limits.pollsPerUser = 2
        try await withServer(limits: limits, mode: .live) { api in
            let port = try #require(api.client.port)
            let (_, bob, _) = try await api.pair()
            let head = try await api.sync(bob.token, query: "last=0").cursor
            let polls = try (0..<2).map { _ in try RawConnection(port: port) }
            for poll in polls { poll.send(Self.get("/v1/sync?after=\(head)&wait=30", bob.token)) }
            await HeldPolls.wait(for: Tokens.hash(bob.token), count: 2, .parked)
            let refused = try await api.call(.get, "/v1/sync?after=\(head)&wait=1", token: bob.token)
            #expect(refused.status == .tooManyRequests, "both slots are held")
            let hungUp = Date()
            for poll in polls { poll.hangUp() }
            await HeldPolls.wait(for: Tokens.hash(bob.token), count: 2, .hungUp)
            // Given back when the connections closed, not when their 30 s run out.
            #expect(Date().timeIntervalSince(hungUp) < 10, "given back \(Date().timeIntervalSince(hungUp)) s after the hang-up")
            let answered = try await api.call(.get, "/v1/sync?after=\(head)&wait=1", token: bob.token)
            #expect(answered.status == .ok, "\(answered.text)")
        }
    }

    @Test func aParkedPollThatTimesOutAnswersWithNothingNew() async throws {
        try await withServer(mode: .live) { api in
            let port = try #require(api.client.port)
            let (_, bob, _) = try await api.pair()
            let first = try await api.sync(bob.token, query: "last=0")
            let poll = try RawConnection(port: port)
            let started = Date()
            let check = first.cursorCheck.map { "&check=\($0)" } ?? ""
            poll.send(Self.get("/v1/sync?after=\(first.cursor)\(check)&wait=1", bob.token))
            let text = try #require(await poll.read(timeout: 5) { Self.answers($0).count == 1 })
            #expect(Date().timeIntervalSince(started) >= 0.9)
            let body = try #require(Self.answers(text).first?.body)
            let answer = try JSONDecoder().decode(SyncResponse.self, from: Data(body.utf8))
            #expect(answer.events.isEmpty)
            #expect(answer.cursor == first.cursor)
            #expect(answer.cursorCheck == first.cursorCheck)
        }
    }

    @Test func aPollAskingToCloseIsAnsweredBeforeTheClose() async throws {
        try await withServer(mode: .live) { api in
            let waiting = try await Self.bobWaits(api, closing: true)
            await HeldPolls.wait(for: Tokens.hash(waiting.bob.token))
            try await api.send(waiting.alice.token, to: waiting.conversation, localId: "wake", text: "then goodbye")
            let text = try #require(await waiting.poll.readUntilClosed(timeout: 5))
            #expect(text.hasPrefix("HTTP/1.1 200"))
            #expect(text.contains("then goodbye"))
        }
    }
}
