import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NexusWire
import Testing

@testable import NexusServer

/// docs/openapi.yaml against the server: the same routes both ways, the statuses every
/// route can answer, every error code the server sends, and a short schemathesis run
/// against live answers (`make fuzz-api` is the long one).
struct OpenAPITests {
    /// The repository: this file is Server/Tests/NexusServerTests/Docs/OpenAPITests.swift.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let specText: String = (try? String(contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)) ?? ""

    /// One operation of the spec. The spec is read by indentation, the way it is written:
    /// paths at 2 spaces, methods at 4, `security` and `requestBody` at 6, statuses at 8.
    struct Operation: Hashable {
        var method: String
        var path: String
        var statuses: Set<String> = []
        var isPublic = false
        var hasBody = false
    }

    static func operations(_ yaml: String) -> [Operation] {
        var operations: [Operation] = []
        var inPaths = false
        var path: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if !line.hasPrefix(" ") && !line.isEmpty { inPaths = line == "paths:"; continue }
            guard inPaths else { continue }
            let indent = line.prefix { $0 == " " }.count
            let text = line.trimmingCharacters(in: .whitespaces)
            switch indent {
            case 2 where text.hasSuffix(":"): path = String(text.dropLast())
            case 4 where ["get:", "post:", "put:", "patch:", "delete:"].contains(text):
                operations.append(Operation(method: String(text.dropLast()).uppercased(), path: path ?? "?"))
            case 6 where text == "security: []": operations[operations.count - 1].isPublic = true
            case 6 where text == "requestBody:": operations[operations.count - 1].hasBody = true
            case 8 where text.hasPrefix("\""):
                operations[operations.count - 1].statuses.insert(String(text.dropFirst().prefix(3)))
            default: break
            }
        }
        return operations
    }

    /// The router's routes, with `:name` written `{name}` as OpenAPI does.
    static func serverRoutes() async throws -> Set<String> {
        let stores = try await SQLiteDatabase.stores(path: ":memory:", logger: Logger(label: "test"))
        let router = buildRouter(AppServices(stores: stores, passwords: Passwords(cost: 4)))
        try await stores.database.close()
        return Set(router.routes.map { route in
            let path = route.path.description.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
            return "\(route.method.rawValue) /" + path.joined(separator: "/")
        })
    }

    @Test func specAndRouterHaveTheSameRoutes() async throws {
        let spec = Set(Self.operations(Self.specText).map { "\($0.method) \($0.path)" })
        let server = try await Self.serverRoutes()
        #expect(server.count >= 16)
        #expect(server.subtracting(spec).sorted() == [], "served but not in docs/openapi.yaml")
        #expect(spec.subtracting(server).sorted() == [], "in docs/openapi.yaml but not served")
    }

    /// The statuses the server gives any route of a kind are in every such operation.
    @Test func everyOperationListsTheStatusesItCanAnswer() {
        let operations = Self.operations(Self.specText)
        #expect(operations.count >= 16)
        for op in operations {
            let name = "\(op.method) \(op.path)"
            #expect(op.statuses.contains { $0.hasPrefix("2") }, "\(name): no success status")
            if !op.isPublic { #expect(op.statuses.contains("401"), "\(name): needs a token, so 401") }
            if op.path.contains("{id}") { #expect(op.statuses.contains("404"), "\(name): takes an id, so 404") }
            if op.hasBody {
                #expect(op.statuses.isSuperset(of: ["400", "413"]), "\(name): takes a body, so 400 and 413")
            }
        }
    }

    /// Every error code in the server's source is named in the spec.
    @Test func everyErrorCodeIsInTheSpec() throws {
        let sources = Self.root.appendingPathComponent("Server/Sources/NexusServer")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        var codes = Set<String>()
        let pattern = try Regex(#"(?:code: |tooManyRequests\(\s*)([^,\n]*)"#)
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: pattern) {
                let segment = String(text[match.range])
                for quoted in segment.matches(of: try Regex(#""([a-z_]+)""#)) { codes.insert(String(segment[quoted.range].dropFirst().dropLast())) }
            }
        }
        #expect(codes.count >= 20)
        for code in codes.sorted() { #expect(Self.specText.contains("`\(code)`"), "error code \(code) is not in docs/openapi.yaml") }
    }

    /// A short, fixed-seed `make fuzz-api` (one schemathesis worker, a few cases per
    /// operation), so a server that answers what docs/openapi.yaml does not allow fails
    /// here. Its venv is the one Tests/scripts/fuzz-api.sh makes.
    @Test(.timeLimit(.minutes(3))) func aShortSchemathesisRunFindsNothing() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["bash", OpenAPITests.root.appendingPathComponent("Tests/scripts/fuzz-api.sh").path]
        var environment = ProcessInfo.processInfo.environment
        environment["FUZZ_API_EXAMPLES"] = "4"
        environment["FUZZ_API_SECONDS"] = "8"
        environment["FUZZ_API_WORKERS"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "fuzz-api failed:\n\(text.suffix(6000))")
    }
}
