import Foundation
import HummingbirdTesting
import NexusWire
import Testing

@testable import NexusServer

/// A token that stops working ends the long polls it holds at once, with the 401 a new
/// request would get, and they never hand over what was committed after (CredentialWatch).
/// Each test waits for its poll to be held (HeldPolls) before it revokes.
@Suite(.timeLimit(.minutes(2)))
struct RevokedPollTests {
    init() { HeldPolls.turnOn() }

    /// A poll of `token` at the head of its feed, held on a connection of its own.
    private static func heldPoll(_ api: API, _ token: String, closing: Bool = false) async throws -> RawConnection {
        let head = try await api.sync(token, query: "last=0").cursor
        return try await heldPoll(port: try #require(api.client.port), token, query: "after=\(head)", closing: closing)
    }

    private static func heldPoll(port: Int, _ token: String, query: String, closing: Bool = false) async throws -> RawConnection {
        let poll = try RawConnection(port: port)
        poll.send(ParkedPollTests.get("/v1/sync?\(query)&wait=30", token, closing: closing))
        await HeldPolls.wait(for: Tokens.hash(token))
        return poll
    }

    /// The poll's answer, which must come well before its 30 s wait ends.
    private static func answer(_ poll: RawConnection, within seconds: Double = 5) async throws -> (head: String, body: String) {
        let text = try #require(await poll.read(timeout: seconds) { ParkedPollTests.answers($0).count == 1 }, "the poll is still held")
        return try #require(ParkedPollTests.answers(text).first)
    }

    /// Ends at once with `code`, then hands over nothing sent after.
    private static func expectEnded(_ poll: RawConnection, code: String, api: API, from sender: String, to conversation: Int64) async throws {
        let (head, body) = try await answer(poll)
        #expect(head.hasPrefix("HTTP/1.1 401"), "\(head)\n\(body)")
        #expect(body.contains("\"\(code)\""), "\(body)")
        try await api.send(sender, to: conversation, localId: "after", text: "written after")
        #expect(!(await poll.drain(for: 0.3)).contains("written after"))
    }

    private static func token(_ api: API, _ owner: String, _ name: String, _ scope: TokenScope) async throws -> String {
        let created = try await api.call(.post, "/v1/tokens", token: owner, json: CreateTokenRequest(name: name, scope: scope))
        return try decode(CreatedToken.self, created).token
    }

    /// A read token revoked, or a bot deleted, by its owner; the poll held by its
    /// connection, or (`closing`) in its task.
    @Test(arguments: [("tokens", false), ("tokens", true), ("bots", false)])
    func aRevokedTokensPollEnds(kind: String, closing: Bool) async throws {
        try await withServer(mode: .live) { api in
            let (alice, bob, conversation) = try await api.pair()
            let created = kind == "bots"
                ? try await api.call(.post, "/v1/bots", token: bob.token, json: CreateBotRequest(name: "helper", scope: .read))
                : try await api.call(.post, "/v1/tokens", token: bob.token, json: CreateTokenRequest(name: "helper", scope: .read))
            let poll = try await Self.heldPoll(api, try decode(CreatedToken.self, created).token, closing: closing)
            let revoked = try await api.call(.delete, "/v1/\(kind)/helper", token: bob.token)
            #expect(revoked.status == .noContent, "\(revoked.text)")
            try await Self.expectEnded(poll, code: "unauthorized", api: api, from: alice.token, to: conversation)
        }
    }

    @Test func aLoggedOutSessionsPollEndsAndItsOtherSessionsDoNot() async throws {
        try await withServer(mode: .live) { api in
            let (alice, bob, conversation) = try await api.pair()
            let other = try decode(AuthResponse.self, try await api.login(bob.user.email)).token
            let poll = try await Self.heldPoll(api, bob.token)
            let kept = try await Self.heldPoll(api, other)
            let out = try await api.call(.post, "/v1/logout", token: bob.token)
            #expect(out.status == .noContent, "\(out.text)")
            try await Self.expectEnded(poll, code: "unauthorized", api: api, from: alice.token, to: conversation)
            let (head, body) = try await Self.answer(kept)
            #expect(head.hasPrefix("HTTP/1.1 200") && body.contains("written after"), "\(head)\n\(body)")
        }
    }

    /// The session lapses while its poll is held, and a message then wakes it: the check
    /// before its answer finds the session expired by the services' clock.
    @Test func aSessionThatLapsesWhileHeldGetsNothingWrittenAfter() async throws {
        let clock = TestClock()
        try await withServer(clock: clock.read, mode: .live) { api in
            let (alice, bob, conversation) = try await api.pair()
            let sender = try await Self.token(api, alice.token, "sender", .send)
            let poll = try await Self.heldPoll(api, bob.token)
            clock.advance(seconds: ServerLimits().tokenTTLSeconds + 1)
            try await api.send(sender, to: conversation, localId: "after", text: "written after")
            let (head, body) = try await Self.answer(poll)
            #expect(head.hasPrefix("HTTP/1.1 401") && body.contains("\"token_expired\""), "\(head)\n\(body)")
        }
    }

    /// No request and no message: the poll ends when its session lapses, not when its wait does.
    @Test func aPollEndsWhenItsSessionLapses() async throws {
        var limits = ServerLimits()
        // Long enough for the registration and the poll to be held first on a busy machine.
        limits.tokenTTLSeconds = 5
        let ttl = limits.tokenTTLSeconds
        try await withServer(limits: limits, mode: .live) { api in
            let bob = try await api.register("bob@example.com")
            let poll = try await Self.heldPoll(api, bob.token)
            // The poll's own request slid the session: it lapses 5 s after the poll came,
            // so a 5 s read from the moment it was held raced the lapse itself.
            let (head, body) = try await Self.answer(poll, within: Double(ttl) + 5)
            #expect(head.hasPrefix("HTTP/1.1 401") && body.contains("\"token_expired\""), "\(head)\n\(body)")
        }
    }

    /// A removal ends the removed member's held poll of the group with the non-member's 404.
    @Test func aRemovalEndsTheRemovedMembersHeldPollOfTheGroup() async throws {
        try await withServer(mode: .live) { api in
            let members = MembersControllerTests()
            let (alice, _, carol, _, id) = try await members.group(api)
            let head = try await api.sync(carol.token, query: "conversation=\(id)&last=0").cursor
            let poll = try await Self.heldPoll(port: try #require(api.client.port), carol.token, query: "conversation=\(id)&after=\(head)")
            let removed = try await members.change(
                api, alice.token, "/v1/conversations/\(id)/members/remove", MembershipRequest(localId: "out", emails: [carol.user.email]))
            #expect(removed.status == .created, "\(removed.text)")
            let (answerHead, body) = try await Self.answer(poll)
            #expect(answerHead.hasPrefix("HTTP/1.1 404") && body.contains("\"not_found\""), "\(answerHead)\n\(body)")
        }
    }

    /// What a poll's check finds, for what no request can time: a revocation whose
    /// statement may have committed but whose hashes are not marked yet, a reconnected bus.
    @Test func aCheckReadsTheTokenAgainWhileARevocationIsUnderWayOrAfterTheBusReconnected() {
        let watch = CredentialWatch(keepMarksFor: .seconds(60))
        let now = Timestamp.now()
        let held = watch.hold(hash: "h", isAccessToken: false, viewer: 7, expiresAt: nil)
        #expect(watch.standing(of: held, now: now).0 == .valid)
        watch.beginRevoking()
        #expect(watch.standing(of: held, now: now).0 == .unsure, "another token's revocation may have committed")
        #expect(watch.marks(["other"], local: true).isEmpty)
        #expect(watch.standing(of: held, now: now).0 == .valid)
        watch.reconnected()
        let (standing, confirmation) = watch.standing(of: held, now: now)
        #expect(standing == .unsure, "a note may have been lost")
        watch.confirm(held, confirmation)
        #expect(watch.standing(of: held, now: now).0 == .valid)
        let lapsing = watch.hold(hash: "l", isAccessToken: true, viewer: 8, expiresAt: now)
        #expect(watch.standing(of: lapsing, now: now).0 == .unsure, "another request may have slid it")
        #expect(watch.marks(["h"], local: false) == [7])
        #expect(watch.standing(of: held, now: now).0 == .revoked)
        watch.release(held)
        #expect(watch.marks(["h"], local: false).isEmpty, "released: no poll to wake")
    }

    /// A replica trusts what it read of a token no longer than its session cache does.
    @Test func aReplicaReadsAHeldPollsTokenAgainOnceItsTrustIsOld() async throws {
        let watch = CredentialWatch(keepMarksFor: .seconds(60), trust: .milliseconds(100))
        let held = watch.hold(hash: "h", isAccessToken: false, viewer: 7, expiresAt: nil)
        #expect(watch.standing(of: held, now: .now()).0 == .valid)
        try await Task.sleep(for: .milliseconds(150))
        let (standing, confirmation) = watch.standing(of: held, now: .now())
        #expect(standing == .unsure)
        watch.confirm(held, confirmation)
        #expect(watch.standing(of: held, now: .now()).0 == .valid)
    }

    /// Two replicas of one PostgreSQL database: a logout and a revocation through A end the
    /// polls held on B, by the cluster bus's note.
    @Test(.enabled(if: onPostgres, "needs PostgreSQL: replicas share its database"))
    func aRevocationThroughOneReplicaEndsThePollsHeldOnTheOther() async throws {
        let (config, cleanUp) = try testConfig(ServerLimits())
        defer { cleanUp() }
        let a = try await buildApplication(config)
        let b = try await buildApplication(config)
        try await a.test(.live) { viaA in
            try await b.test(.live) { viaB in
                let api = API(client: viaA)
                let portB = try #require(viaB.port)
                let (alice, bob, conversation) = try await api.pair()
                let read = try await Self.token(api, bob.token, "reader", .read)
                let head = try await api.sync(bob.token, query: "last=0").cursor
                let session = try await Self.heldPoll(port: portB, bob.token, query: "after=\(head)")
                let token = try await Self.heldPoll(port: portB, read, query: "after=\(head)")
                #expect(try await api.call(.delete, "/v1/tokens/reader", token: bob.token).status == .noContent)
                #expect(try await api.call(.post, "/v1/logout", token: bob.token).status == .noContent)
                for poll in [session, token] {
                    try await Self.expectEnded(poll, code: "unauthorized", api: api, from: alice.token, to: conversation)
                }
            }
        }
    }
}
