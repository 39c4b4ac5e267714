import Foundation
import Testing

@testable import NexusServer

/// docs/protocol.md names every route the server serves, and no other, as OpenAPITests
/// does for docs/openapi.yaml: a route added without its section fails here.
struct ProtocolDocTests {
    /// The routes in backticks, "`METHOD /path`", of every "### " heading (a heading may name
    /// several), without their query strings.
    static func documentedRoutes() throws -> Set<String> {
        let text = try String(contentsOf: OpenAPITests.root.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        var routes = Set<String>()
        for line in text.split(separator: "\n") where line.hasPrefix("### ") {
            for (index, part) in line.split(separator: "`").enumerated() where index % 2 == 1 {
                let words = part.split(separator: " ")
                guard words.count == 2, ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(String(words[0])) else { continue }
                routes.insert("\(words[0]) \(words[1].prefix { $0 != "?" })")
            }
        }
        return routes
    }

    @Test func everyRouteHasItsSectionAndEverySectionItsRoute() async throws {
        let served = try await OpenAPITests.serverRoutes()
        let documented = try Self.documentedRoutes()
        #expect(served.subtracting(documented).sorted() == [], "routes docs/protocol.md does not describe")
        #expect(documented.subtracting(served).sorted() == [], "sections of docs/protocol.md for routes the server lacks")
    }
}
