import HTTPTypes
import NexusWire
import Testing

@testable import NexusServer

/// The authentication half of the authorization matrix, built from the router itself: every
/// route answers 401 to a caller without a valid token, except those docs/openapi.yaml marks
/// public (`security: []`). A route added outside AuthenticationMiddleware fails here the day
/// it is added, with no list to update.
struct RouteAuthenticationTests {
    @Test(arguments: [nil, "not-a-token"] as [String?])
    func everyRouteButThePublicOnesNeedsAToken(_ token: String?) async throws {
        let routes = try await OpenAPITests.serverRoutes()
        let publicRoutes = Set(OpenAPITests.operations(OpenAPITests.specText).filter(\.isPublic).map { "\($0.method) \($0.path)" })
        #expect(publicRoutes.count >= 3)
        #expect(routes.count > publicRoutes.count + 10)
        try await withServer { api in
            for route in routes.sorted() {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let method = try #require(HTTPRequest.Method(parts[0]))
                let path = parts[1].replacingOccurrences(of: "{id}", with: "1")
                let response = try await api.call(method, path, token: token, raw: method == .post ? "{}" : nil)
                if publicRoutes.contains(route) {
                    #expect(response.status != .unauthorized, "\(route) is public in docs/openapi.yaml")
                } else {
                    #expect(response.status == .unauthorized, "\(route): \(response.status) \(response.text)")
                    try expectError(response, .unauthorized, code: "unauthorized")
                }
            }
        }
    }
}
