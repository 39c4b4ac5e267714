import Foundation
import NexusWire
import Testing

@testable import NexusServer

struct UsersControllerTests {
    /// alice, bob and carol; the directory as alice sees it for `query`.
    func directory(_ query: String) async throws -> [String] {
        try await withServer { api in
            let alice = try await api.register("alice@example.com", name: "Alice")
            _ = try await api.register("bob@example.com", name: "Bob")
            _ = try await api.register("carol@example.org", name: "Carol Danvers")
            let response = try await api.call(.get, "/v1/users\(query)", token: alice.token)
            #expect(response.status == .ok)
            return try decode(UsersResponse.self, response).users.map(\.email)
        }
    }

    @Test func listExcludesTheCaller() async throws {
        #expect(try await directory("") == ["bob@example.com", "carol@example.org"])
    }

    @Test(arguments: [
        ("?search=dan", ["carol@example.org"]),  // by display name
        ("?search=CAROL", ["carol@example.org"]),  // case-insensitive
        ("?search=bob%40", ["bob@example.com"]),  // by email, percent-decoded
        ("?search=example.com", ["bob@example.com"]),  // the caller is never listed
        ("?search=alice", [String]()),
        ("?search=%25", [String]()),  // LIKE wildcards are escaped
        ("?search=_", [String]()),
        ("?search=", ["bob@example.com", "carol@example.org"]),
    ])
    func searchMatchesNameOrEmail(query: String, expected: [String]) async throws {
        #expect(try await directory(query) == expected)
    }
}
