import Foundation
import HTTPTypes
import HummingbirdTesting
import NexusWire
import Testing

@testable import NexusServer

/// Regressions for holes found in review.
struct ReviewRegressionTests {
    /// bcrypt is C and stops at NUL: "secret12\0tail" must not be stored as "secret12".
    @Test func passwordsWithNULAreRefused() async throws {
        try await withServer { api in
            let nul = try await api.call(
                .post, "/v1/register", json: RegisterRequest(email: "a@example.com", password: "secret12\u{0}tail", displayName: nil))
            try expectError(nul, .badRequest, code: "invalid_password")
            _ = try await api.register("b@example.com", password: "secret12")
            let login = try await api.call(.post, "/v1/login", json: LoginRequest(email: "b@example.com", password: "secret12\u{0}x"))
            // Said plainly, and not counted as a guess.
            try expectError(login, .badRequest, code: "invalid_password")
        }
    }

    @Test func bearerSchemeIsCaseInsensitive() async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com")
            var headers: HTTPFields = [:]
            headers[.authorization] = "bearer \(alice.token)"
            let response = try await api.client.executeRequest(uri: "/v1/me", method: .get, headers: headers, body: nil)
            #expect(response.status == .ok)
        }
    }

    /// Two Authorization headers name no one, even when one of them is right.
    @Test func twoAuthorizationHeadersAreRefused() async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com")
            var headers: HTTPFields = [:]
            headers.append(HTTPField(name: .authorization, value: "Bearer \(alice.token)"))
            headers.append(HTTPField(name: .authorization, value: "Bearer \(alice.token)"))
            let response = try await api.client.executeRequest(uri: "/v1/me", method: .get, headers: headers, body: nil)
            #expect(response.status == .unauthorized)
        }
    }

    /// A localId names one message: reusing it for another conversation is a conflict,
    /// not a silent answer with the other conversation's message.
    @Test func localIdReusedInAnotherConversationIsAConflict() async throws {
        try await withServer { api in
            let (alice, _, first) = try await api.pair()
            _ = try await api.register("carol@example.com")
            let second = try await api.openDirect(alice.token, with: "carol@example.com").conversation.id
            try await api.send(alice.token, to: first, localId: "same")
            let reused = try await api.call(
                .post, "/v1/conversations/\(second)/messages", token: alice.token, json: SendRequest(localId: "same", text: "hi"))
            try expectError(reused, .conflict, code: "local_id_reused")
            #expect(try await api.messages(alice.token, in: second).messages.isEmpty)
        }
    }

    /// A logout racing with requests of the same token leaves the token dead.
    @Test func logoutRacingWithRequestsRevokes() async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com")
            async let racing: [HTTPTypes.HTTPResponse.Status] = withThrowingTaskGroup(of: HTTPTypes.HTTPResponse.Status.self) { group in
                for _ in 0..<20 { group.addTask { try await api.call(.get, "/v1/me", token: alice.token).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let logout = try await api.call(.post, "/v1/logout", token: alice.token)
            #expect(logout.status == .noContent)
            _ = try await racing
            let after = try await api.call(.get, "/v1/me", token: alice.token)
            try expectError(after, .unauthorized, code: "unauthorized")
        }
    }
}
