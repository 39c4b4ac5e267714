import Foundation
import HTTPTypes
import HummingbirdTesting
import NexusWire
import Testing

@testable import NexusServer

/// Tokens expire when unused for the configured time; login gives a new one; logout revokes.
struct TokenTests {
    @Test func tokensExpireWhenIdleAndLoginGivesANewOne() async throws {
        let clock = TestClock()
        var limits = ServerLimits()
        limits.tokenTTLSeconds = 600
        try await withServer(clock: clock.read, limits: limits) { api in
            let alice = try await api.register("alice@example.com")
            #expect(alice.expiresAt == Timestamp(milliseconds: clock.read().milliseconds + 600_000))
            // The first call puts the session in the cache: expiry must hold there too.
            #expect(try await api.call(.get, "/v1/me", token: alice.token).status == .ok)
            // Each use slides the expiry to 600 s after it, so two uses 599 s
            // apart outlast the first 600 s; then 600 s idle end it.
            clock.advance(seconds: 599)
            #expect(try await api.call(.get, "/v1/me", token: alice.token).status == .ok)
            clock.advance(seconds: 599)
            #expect(try await api.call(.get, "/v1/me", token: alice.token).status == .ok)
            clock.advance(seconds: 600)
            try expectError(try await api.call(.get, "/v1/me", token: alice.token), .unauthorized, code: "token_expired")

            let login = try decode(AuthResponse.self, try await api.login("alice@example.com"))
            #expect(login.token != alice.token)
            #expect(login.expiresAt == Timestamp(milliseconds: clock.read().milliseconds + 600_000))
            #expect(try await api.call(.get, "/v1/me", token: login.token).status == .ok)
            try expectError(try await api.call(.get, "/v1/me", token: alice.token), .unauthorized, code: "token_expired")
        }
    }

    /// An operator adds `--session-max-age 120s` at a restart: a session made before it
    /// ends 120 s after its login too, at every request, and its header says so.
    @Test func aMaxAgeSetAtARestartReachesSessionsMadeBeforeIt() async throws {
        let clock = TestClock()
        let (config, cleanUp) = try testConfig(ServerLimits())
        defer { cleanUp() }
        let login = clock.read()
        let alice = try await buildApplication(config, clock: clock.read).test(.router) { client in
            try await API(client: client).register("alice@example.com")
        }
        var restarted = config
        restarted.limits.tokenTTLSeconds = 60
        restarted.limits.sessionMaxAgeSeconds = 120
        try await buildApplication(restarted, clock: clock.read).test(.router) { client in
            let api = API(client: client)
            clock.advance(seconds: 100)
            let early = try await api.call(.get, "/v1/me", token: alice.token)
            #expect(early.status == .ok)
            #expect(early.headers[AuthenticationMiddleware.sessionExpiresHeader] == Timestamp(milliseconds: login.milliseconds + 120_000).iso8601)
            for at: Int64 in [130, 145, 430, 445] {
                clock.advance(seconds: at - (clock.read().milliseconds - login.milliseconds) / 1000)
                try expectError(try await api.call(.get, "/v1/me", token: alice.token), .unauthorized, code: "token_expired")
            }
        }
    }

    @Test func logoutRevokesOnTheServer() async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com")
            let other = try decode(AuthResponse.self, try await api.login("alice@example.com"))
            #expect(try await api.call(.post, "/v1/logout", token: alice.token).status == .noContent)
            try expectError(try await api.call(.get, "/v1/me", token: alice.token), .unauthorized, code: "unauthorized")
            // Only that token: the other session of the same account still works.
            #expect(try await api.call(.get, "/v1/me", token: other.token).status == .ok)
        }
    }
}

/// Failed logins are limited per account and per address, with 429 and Retry-After.
struct LoginRateLimitTests {
    @Test func anAccountIsLockedAfterItsFailuresUntilTheWindowPasses() async throws {
        let clock = TestClock()
        try await withServer(clock: clock.read) { api in
            _ = try await api.register("alice@example.com")
            for _ in 0..<5 { try expectError(try await api.login("alice@example.com", password: "wrong one"), .unauthorized, code: "invalid_credentials") }
            clock.advance(seconds: 60)
            // Even the right password waits: otherwise the 6th guess would tell a right one.
            let refused = try await api.login("alice@example.com")
            try expectError(refused, .tooManyRequests, code: "too_many_logins")
            #expect(refused.headers[.retryAfter] == "840")
            // Another account is not affected.
            _ = try await api.register("bob@example.com")
            #expect(try await api.login("bob@example.com").status == .ok)
            clock.advance(seconds: 840)
            #expect(try await api.login("alice@example.com").status == .ok)
        }
    }

    @Test func aSuccessClearsTheAccountsFailures() async throws {
        try await withServer { api in
            _ = try await api.register("alice@example.com")
            for _ in 0..<4 { _ = try await api.login("alice@example.com", password: "wrong one") }
            #expect(try await api.login("alice@example.com").status == .ok)
            for _ in 0..<4 { _ = try await api.login("alice@example.com", password: "wrong one") }
            #expect(try await api.login("alice@example.com").status == .ok)
        }
    }

    /// Guesses sent all at once are counted as they arrive, not after their passwords are
    /// checked: no more than the limit is ever tried.
    @Test func concurrentGuessesDoNotSlipPastTheLimit() async throws {
        try await withServer { api in
            _ = try await api.register("alice@example.com")
            let statuses = try await withThrowingTaskGroup(of: HTTPTypes.HTTPResponse.Status.self) { group in
                for _ in 0..<20 { group.addTask { try await api.login("alice@example.com", password: "wrong one").status } }
                return try await group.reduce(into: [HTTPTypes.HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .unauthorized }.count == 5)
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 15)
        }
    }

    /// Unknown emails count like known ones, so the limit does not tell which exist.
    @Test func unknownAccountsAreLimitedAlike() async throws {
        try await withServer { api in
            for _ in 0..<5 { _ = try await api.login("nobody@example.com", password: "guess guess") }
            try expectError(try await api.login("nobody@example.com", password: "guess guess"), .tooManyRequests, code: "too_many_logins")
        }
    }

    /// One address guessing across many accounts: over a real socket, where the server
    /// sees the peer's address.
    @Test func anAddressIsLimitedAcrossAccounts() async throws {
        var limits = ServerLimits()
        limits.loginFailuresPerAddress = 6
        try await withServer(limits: limits, mode: .live) { api in
            for n in 0..<6 { try expectError(try await api.login("user\(n)@example.com", password: "guess guess"), .unauthorized, code: "invalid_credentials") }
            let refused = try await api.login("fresh@example.com", password: "guess guess")
            try expectError(refused, .tooManyRequests, code: "too_many_logins")
            #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 > 0)
        }
    }
}
