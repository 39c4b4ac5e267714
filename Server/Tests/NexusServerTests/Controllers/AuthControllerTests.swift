import Foundation
import HTTPTypes
import HummingbirdTesting
import NexusWire
import Testing

@testable import NexusServer

struct HealthTests {
    @Test func healthzAnswersOK() async throws {
        try await withServer { api in
            let response = try await api.call(.get, "/healthz")
            #expect(response.status == .ok)
            #expect(try decode([String: String].self, response) == ["status": "ok"])
        }
    }

    @Test func unknownRouteIsAJSONNotFound() async throws {
        try await withServer { api in
            try expectError(try await api.call(.get, "/v1/nope"), .notFound, code: "not_found")
            // A known path with a method it does not serve is a 404 too, not a 405.
            try expectError(try await api.call(.delete, "/v1/me"), .notFound, code: "not_found")
        }
    }
}

struct AuthControllerTests {
    @Test func registerReturnsATokenAndTheUser() async throws {
        try await withServer { api in
            let response = try await api.call(
                .post, "/v1/register", json: RegisterRequest(email: "  Alice@Example.COM ", password: "correct horse", displayName: "Alice"))
            #expect(response.status == .created)
            let auth = try decode(AuthResponse.self, response)
            #expect(auth.token.hasPrefix("nx_"))
            #expect(auth.token.count == 3 + 64)
            #expect(auth.user.email == "alice@example.com")
            #expect(auth.user.displayName == "Alice")
            #expect(auth.user.id > 0)
        }
    }

    @Test func registerNamesTheUserAfterTheEmailByDefault() async throws {
        try await withServer { api in
            let auth = try await api.register("dana@example.com")
            #expect(auth.user.displayName == "dana")
        }
    }

    @Test func duplicateEmailIsAConflict() async throws {
        try await withServer { api in
            _ = try await api.register("alice@example.com")
            let again = try await api.call(
                .post, "/v1/register", json: RegisterRequest(email: "ALICE@example.com", password: "another one", displayName: nil))
            try expectError(again, .conflict, code: "email_taken")
        }
    }

    struct BadRegistration: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var body: String
        var code: String
    }

    static let badRegistrations: [BadRegistration] = [
        .init(testDescription: "no at sign", body: #"{"email":"alice.example.com","password":"correct horse"}"#, code: "invalid_email"),
        .init(testDescription: "empty domain", body: #"{"email":"alice@","password":"correct horse"}"#, code: "invalid_email"),
        .init(testDescription: "inner space", body: #"{"email":"al ice@example.com","password":"correct horse"}"#, code: "invalid_email"),
        .init(testDescription: "short password", body: #"{"email":"alice@example.com","password":"short"}"#, code: "weak_password"),
        .init(
            testDescription: "password over 72 bytes",
            body: #"{"email":"alice@example.com","password":"\#(String(repeating: "p", count: 73))"}"#, code: "invalid_password"),
        .init(
            testDescription: "display name over 100 bytes",
            body: #"{"email":"alice@example.com","password":"correct horse","displayName":"\#(String(repeating: "n", count: 101))"}"#,
            code: "invalid_name"),
        .init(testDescription: "not JSON", body: #"{"email":"#, code: "invalid_body"),
        .init(testDescription: "missing password", body: #"{"email":"alice@example.com"}"#, code: "invalid_body"),
        .init(testDescription: "wrong type", body: #"{"email":42,"password":"correct horse"}"#, code: "invalid_body"),
    ]

    @Test(arguments: badRegistrations)
    func invalidRegistrationIsABadRequest(_ bad: BadRegistration) async throws {
        try await withServer { api in
            try expectError(try await api.call(.post, "/v1/register", raw: bad.body), .badRequest, code: bad.code)
            // Nothing was stored: the email is still free.
            _ = try await api.register("alice@example.com")
        }
    }

    @Test func loginWithTheRightPasswordGivesANewToken() async throws {
        try await withServer { api in
            let registered = try await api.register("alice@example.com", password: "correct horse")
            let response = try await api.call(.post, "/v1/login", json: LoginRequest(email: "Alice@Example.com", password: "correct horse"))
            #expect(response.status == .ok)
            let auth = try decode(AuthResponse.self, response)
            #expect(auth.user == registered.user)
            #expect(auth.token != registered.token)
        }
    }

    @Test(arguments: [("alice@example.com", "wrong horse"), ("nobody@example.com", "correct horse")])
    func loginWithBadCredentialsIsUnauthorized(email: String, password: String) async throws {
        try await withServer { api in
            _ = try await api.register("alice@example.com", password: "correct horse")
            let response = try await api.call(.post, "/v1/login", json: LoginRequest(email: email, password: password))
            let error = try expectError(response, .unauthorized, code: "invalid_credentials")
            #expect(error.error.message == "Incorrect email or password.")
        }
    }

    @Test func meNeedsAToken() async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com")
            let me = try await api.call(.get, "/v1/me", token: alice.token)
            #expect(me.status == .ok)
            #expect(try decode(User.self, me) == alice.user)

            try expectError(try await api.call(.get, "/v1/me"), .unauthorized, code: "unauthorized")
            try expectError(try await api.call(.get, "/v1/me", token: "nx_forged"), .unauthorized, code: "unauthorized")
        }
    }

    @Test func logoutRevokesOnlyThatToken() async throws {
        try await withServer { api in
            let first = try await api.register("alice@example.com", password: "correct horse")
            let second = try decode(
                AuthResponse.self,
                try await api.call(.post, "/v1/login", json: LoginRequest(email: "alice@example.com", password: "correct horse")))
            // Use the token first, so a cached session must be evicted too.
            #expect(try await api.call(.get, "/v1/me", token: first.token).status == .ok)

            let logout = try await api.call(.post, "/v1/logout", token: first.token)
            #expect(logout.status == .noContent)
            #expect(logout.body.readableBytes == 0)

            try expectError(try await api.call(.get, "/v1/me", token: first.token), .unauthorized, code: "unauthorized")
            try expectError(try await api.call(.post, "/v1/logout", token: first.token), .unauthorized, code: "unauthorized")
            #expect(try await api.call(.get, "/v1/me", token: second.token).status == .ok)
        }
    }

    struct Endpoint: Sendable, CustomTestStringConvertible {
        var method: HTTPRequest.Method
        var path: String
        var testDescription: String { "\(method) \(path)" }
    }

    static let protectedEndpoints: [Endpoint] = [
        .init(method: .post, path: "/v1/logout"),
        .init(method: .get, path: "/v1/me"),
        .init(method: .get, path: "/v1/users"),
        .init(method: .get, path: "/v1/conversations"),
        .init(method: .post, path: "/v1/conversations"),
        .init(method: .get, path: "/v1/conversations/1"),
        .init(method: .get, path: "/v1/conversations/1/messages"),
        .init(method: .post, path: "/v1/conversations/1/messages"),
        .init(method: .get, path: "/v1/sync"),
    ]

    @Test(arguments: protectedEndpoints)
    func everyEndpointButRegisterAndLoginNeedsAToken(_ endpoint: Endpoint) async throws {
        try await withServer { api in
            try expectError(try await api.call(endpoint.method, endpoint.path), .unauthorized, code: "unauthorized")
            try expectError(
                try await api.call(endpoint.method, endpoint.path, token: "nx_0000"), .unauthorized, code: "unauthorized")
        }
    }
}
