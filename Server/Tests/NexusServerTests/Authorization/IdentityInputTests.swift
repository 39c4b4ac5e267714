import Foundation
import HTTPTypes
import HummingbirdTesting
import NexusWire
import Testing

@testable import NexusServer

/// No account can take another one's email with a character
/// that does not show, and no text field takes a NUL.
struct IdentityInputTests {
    /// Each of these reads as bob@example.test on a terminal.
    static let lookAlikes = ["\u{0}", "\u{200B}", "\u{2060}", "\u{00AD}", "\u{1B}", "\u{7F}", "\u{85}", "\u{FEFF}", "\u{202E}", "\u{3164}"]

    @Test(arguments: lookAlikes)
    func anEmailWithAnInvisibleCharacterIsRefused(_ hidden: String) async throws {
        try await withServer { api in
            _ = try await api.register("bob@example.test")
            for email in ["bob@example.test" + hidden, "b" + hidden + "ob@example.test"] {
                let response = try await api.call(
                    .post, "/v1/register", json: RegisterRequest(email: email, password: "correct horse", displayName: nil))
                let error = try expectError(response, .badRequest, code: "invalid_email")
                // The message shows the character instead of passing it to a terminal.
                #expect(!error.error.message.unicodeScalars.contains { Identity.isForbidden($0, allowSpace: true) })
            }
            let users = try decode(UsersResponse.self, try await api.call(.get, "/v1/users", token: try await api.register("eve@example.test").token))
            #expect(users.users.map(\.email) == ["bob@example.test"])
        }
    }

    @Test func emailsAreComparedInOneFormOnEveryLookup() async throws {
        try await withServer { api in
            let jose = try await api.register("jos\u{E9}@example.test", name: "Jos\u{E9}")
            // The same email in decomposed form and upper case is the same account.
            let decomposed = "JOSE\u{301}@Example.TEST"
            let taken = try await api.call(.post, "/v1/register", json: RegisterRequest(email: decomposed, password: "correct horse", displayName: nil))
            try expectError(taken, .conflict, code: "email_taken")
            #expect(try await api.login(decomposed).status == .ok)
            let alice = try await api.register("alice@example.test")
            let opened = try await api.openDirect(alice.token, with: decomposed)
            #expect(opened.conversation.members.map(\.id).contains(jose.user.id))
            let found = try decode(UsersResponse.self, try await api.call(.get, "/v1/users?search=jose%CC%81", token: alice.token))
            #expect(found.users.map(\.id) == [jose.user.id])
        }
    }

    @Test(arguments: ["bob@@example.test", "bob@", "@example.test", ".bob@example.test", "bo..b@example.test", "bob@-example.test",
                      "bob@example..test", "\"bob\"@example.test", "bob@exa_mple.test", "bob<x>@example.test"])
    func anEmailOutsideTheDocumentedSyntaxIsRefused(_ email: String) async throws {
        try await withServer { api in
            let response = try await api.call(.post, "/v1/register", json: RegisterRequest(email: email, password: "correct horse", displayName: nil))
            try expectError(response, .badRequest, code: "invalid_email")
        }
    }

    @Test func displayNamesAndTitlesTakeNoControlOrInvisibleCharacter() async throws {
        try await withServer { api in
            for name in ["Bob\u{1B}[2J", "Bob\u{200B}", "Bob\u{0}", "Bob\nSmith", "Bob\u{2028}"] {
                let response = try await api.call(
                    .post, "/v1/register", json: RegisterRequest(email: "bob@example.test", password: "correct horse", displayName: name))
                try expectError(response, .badRequest, code: "invalid_name")
            }
            let bob = try await api.register("bob@example.test", name: "Bob Smith \u{2764}\u{FE0F}")
            #expect(bob.user.displayName == "Bob Smith \u{2764}\u{FE0F}")
            _ = try await api.register("carol@example.test")
            let alice = try await api.register("alice@example.test")
            for title in ["ops\u{1B}]52;c;aGk=\u{7}", "ops\u{202E}"] {
                let response = try await api.call(
                    .post, "/v1/conversations", token: alice.token,
                    json: CreateConversationRequest(kind: .group, members: ["bob@example.test", "carol@example.test"], name: title))
                try expectError(response, .badRequest, code: "invalid_name")
            }
        }
    }

    /// PostgreSQL's text can't hold NUL and SQLite reads it back cut short: every text
    /// field is refused with it, before anything is stored.
    @Test func aNulIsRefusedInEveryTextField() async throws {
        try await withServer { api in
            let (alice, _, conversation) = try await api.pair()
            let register = try await api.call(
                .post, "/v1/register", json: RegisterRequest(email: "carol@example.test", password: "correct\u{0}horse", displayName: nil))
            try expectError(register, .badRequest, code: "invalid_password")
            try expectError(try await api.login("alice@example.com", password: "correct horse\u{0}x"), .badRequest, code: "invalid_password")
            let text = try await api.call(
                .post, "/v1/conversations/\(conversation)/messages", token: alice.token, json: SendRequest(localId: "l1", text: "before\u{0}after"))
            let error = try expectError(text, .badRequest, code: "invalid_text")
            #expect(error.error.message.contains("character 7"))
            let localId = try await api.call(
                .post, "/v1/conversations/\(conversation)/messages", token: alice.token, json: SendRequest(localId: "l\u{0}2", text: "hi"))
            try expectError(localId, .badRequest, code: "invalid_local_id")
            try expectError(try await api.call(.get, "/v1/users?search=a%00b", token: alice.token), .badRequest, code: "invalid_query")
            let direct = try await api.call(
                .post, "/v1/conversations", token: alice.token, json: CreateConversationRequest(kind: .direct, members: ["bob@example.com\u{0}"]))
            try expectError(direct, .badRequest, code: "invalid_email")
            #expect(try await api.messages(alice.token, in: conversation).messages.isEmpty)
        }
    }
}
