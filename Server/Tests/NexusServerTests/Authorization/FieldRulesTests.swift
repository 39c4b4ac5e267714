import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NexusWire
import Testing

@testable import NexusServer

/// The server and docs/openapi.yaml hold a name to the same rule (FieldRules), on both
/// backends: what the spec refuses is refused with 400 `invalid_name`, and whatever the
/// server stores and lists matches the spec's pattern.
struct FieldRulesTests {
    @Test func theSpecStatesEachRuleForEveryFieldItGoverns() {
        let rule = FieldRules.tokenName
        let stated = "pattern: '\(rule.pattern)', maxLength: \(rule.maxLength)"
        // AccessToken.name (answers) and TokenRequest.name (requests).
        #expect(OpenAPITests.specText.components(separatedBy: stated).count - 1 == 2, "docs/openapi.yaml should say \(stated) for token names")
    }

    @Test func tokenNamesOutsideTheSpecAreRefusedAndListedNamesMatchIt() async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com")
            let long = String(repeating: "a", count: 40)
            for name in ["__main__", "_a", "-a", ".a", "a.", "a..b", "a b", "", long + "a", "é"] {
                let response = try await api.call(.post, "/v1/tokens", token: alice.token, json: CreateTokenRequest(name: name, scope: .read))
                try expectError(response, .badRequest, code: "invalid_name")
            }
            for name in ["a", "ci.deploy_1-x", "a_", "9.z", long] {
                let response = try await api.call(.post, "/v1/tokens", token: alice.token, json: CreateTokenRequest(name: name, scope: .read))
                #expect(response.status == .created, "\(name): \(response.status) \(response.text)")
            }
            let listed = try decode(TokensResponse.self, try await api.call(.get, "/v1/tokens", token: alice.token)).tokens.map(\.name)
            #expect(listed.count == 5)
            let pattern = try Regex(FieldRules.tokenName.pattern)
            for name in listed { #expect(name.wholeMatch(of: pattern) != nil, "\(name) is listed but the spec refuses it") }
        }
    }
}
