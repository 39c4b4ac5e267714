import Foundation
import NexusCore
import Testing

/// Numbers at the edges of Int64 in every integer parameter docs/openapi.yaml names,
/// against the real nexusd on SQLite or PostgreSQL: each is answered (a 4xx, or a 2xx
/// where the value is allowed), never a 5xx, and nexusd is still running after each.
@Suite(.harness)
struct BoundaryNumbersTests {
    static let values = ["9223372036854775807", "-9223372036854775808", "-1", "0", "9007199254740993"]

    /// One integer parameter of one operation, read from the spec's one-line parameters.
    struct IntegerParameter: CustomStringConvertible {
        var method: String
        var path: String
        var name: String
        var inPath: Bool
        var description: String { "\(method) \(path) \(name)" }
    }

    static func integerParameters() throws -> [IntegerParameter] {
        let spec = try String(contentsOfFile: Binaries.root + "/docs/openapi.yaml", encoding: .utf8)
        let named = try Regex(#"name: ([A-Za-z-]+), in: (path|query)"#)
        var found: [IntegerParameter] = []
        var path = "", method = "", inPaths = false
        for line in spec.split(separator: "\n").map(String.init) {
            if !line.hasPrefix(" ") { inPaths = line == "paths:"; continue }
            guard inPaths else { continue }
            let indent = line.prefix { $0 == " " }.count
            let text = line.trimmingCharacters(in: .whitespaces)
            if indent == 2 && text.hasSuffix(":") { path = String(text.dropLast()) }
            if indent == 4 && text.hasSuffix(":") { method = String(text.dropLast()).uppercased() }
            guard indent == 8, text.hasPrefix("- {") else { continue }
            if text.contains("#/components/parameters/ConversationId") {
                found.append(IntegerParameter(method: method, path: path, name: "id", inPath: true))
            } else if text.contains("type: integer"), let match = text.firstMatch(of: named) {
                let name = String(match.output[1].substring ?? "")
                found.append(IntegerParameter(method: method, path: path, name: name, inPath: match.output[2].substring == "path"))
            }
        }
        return found
    }

    /// `parameter` at `value`; the other parameters at values that get past their own
    /// checks (conversation 1 and its message 1 exist), so the request reaches this one.
    static func request(_ parameter: IntegerParameter, _ value: String) -> String {
        var path = parameter.path
        for (name, filler) in [("id", "1"), ("seq", "1"), ("index", "0"), ("sha256", String(repeating: "a", count: 64))] {
            path = path.replacingOccurrences(of: "{\(name)}", with: parameter.inPath && parameter.name == name ? value : filler)
        }
        path = path.replacing(try! Regex(#"\{[A-Za-z]+\}"#), with: "x")
        var query = ["q=hello", "localId=x"]
        if parameter.name != "offset" { query.append("offset=0") }
        if !parameter.inPath { query.append("\(parameter.name)=\(value)") }
        return path + "?" + query.joined(separator: "&")
    }

    static func curl(_ method: String, _ url: String, token: String) throws -> Int {
        let r = try runTool("/usr/bin/curl", [
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", method, "-H", "Authorization: Bearer \(token)",
            "-H", "Content-Type: application/json", "--data-binary", "{}", url,
        ])
        return Int(r.out) ?? 0
    }

    @Test func everyIntegerParameterTakesTheEdgesOfInt64() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "hello"]).code == 0)
        let token = try #require(try Profile(name: "default", home: alice.home).loadSession()).token
        let parameters = try Self.integerParameters()
        #expect(parameters.count >= 15, "the spec's integer parameters were not found")
        for parameter in parameters {
            for value in Self.values {
                let status = try Self.curl(parameter.method, server.url + Self.request(parameter, value), token: token)
                #expect((200..<500).contains(status), "\(parameter) = \(value): \(status)")
                try #require(server.process.isRunning, "nexusd stopped at \(parameter) = \(value): \(server.log.text.suffix(500))")
            }
        }
    }

    /// The same edges in every number a JSON body carries: refused or taken, never a 5xx,
    /// and nothing stored that breaks a later read of the conversation or the feed.
    @Test func everyNumberInABodyTakesTheEdgesOfInt64() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "hello"]).code == 0)
        let token = try #require(try Profile(name: "default", home: alice.home).loadSession()).token
        for (i, v) in Self.values.enumerated() {
            let bodies: [(String, String)] = [
                ("/v1/conversations/1/receipts", #"{"delivered":\#(v)}"#),
                ("/v1/conversations/1/receipts", #"{"read":\#(v)}"#),
                ("/v1/conversations/1/messages", #"{"localId":"edge-\#(i)","text":"x","replyTo":\#(v)}"#),
                ("/v1/messages/changes", #"{"changes":[{"localId":"c-\#(i)","kind":"edit","conversationId":\#(v),"seq":1,"text":"y"}]}"#),
                ("/v1/messages/changes", #"{"changes":[{"localId":"s-\#(i)","kind":"edit","conversationId":1,"seq":\#(v),"text":"y"}]}"#),
                ("/v1/uploads", #"{"sha256":"\#(String(repeating: "b", count: 64))","size":\#(v)}"#),
                ("/v1/tokens", #"{"name":"e\#(i)","scope":"read","expiresIn":\#(v)}"#),
                ("/v1/tokens", #"{"name":"c\#(i)","scope":"read","conversations":[\#(v)]}"#),
            ]
            for (path, body) in bodies {
                let r = try ImpersonationTests.post(server.url, path, json: body, token: token)
                #expect((200..<500).contains(r.status), "\(path) \(body): \(r.status) \(r.body)")
                try #require(server.process.isRunning, "nexusd stopped at \(path) \(body): \(server.log.text.suffix(500))")
            }
        }
        for path in ["/v1/conversations", "/v1/conversations/1", "/v1/conversations/1/messages", "/v1/sync?last=50", "/v1/tokens"] {
            let r = try ImpersonationTests.get(server.url, path, token: token)
            #expect(r.status == 200, "\(path) after the edges: \(r.status) \(r.body)")
        }
    }

    /// The two requests that stopped nexusd: a ranked page past Int64.max, and the
    /// attachment of the last possible seq. Both are 400s that name the field.
    @Test func pageTokensAndSeqsAtInt64MaxAreRefused() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "hello"]).code == 0)
        let token = try #require(try Profile(name: "default", home: alice.home).loadSession()).token
        for page in ["skip:9223372036854775807", "skip:1001", "skip:-1", "before:9223372036854775808"] {
            let r = try ImpersonationTests.get(server.url, "/v1/search?q=hello&order=rank&page=\(page)", token: token)
            #expect(r.status == 400 && r.body.contains("page"), "page=\(page): \(r.status) \(r.body)")
        }
        let r = try ImpersonationTests.get(server.url, "/v1/conversations/1/messages/9223372036854775807/attachments/0", token: token)
        #expect(r.status == 400 && r.body.contains("invalid_path") && r.body.contains("seq"), "\(r.status) \(r.body)")
        #expect(server.process.isRunning)
    }

    /// nexusctl reads the same numbers into range before using them: a usage error, not a trap.
    @Test func nexusctlRefusesTheSameNumbers() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "hello"]).code == 0)
        let download = try alice.run(["download", "1/9223372036854775807"])
        #expect(download.code == 2, "download: \(download.code) \(download.err)")
        let search = try alice.run(["search", "hello", "--offline", "--rank", "--page", "skip:9223372036854775807"])
        #expect(search.code == 2, "search: \(search.code) \(search.err)")
    }
}
