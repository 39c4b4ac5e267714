import Foundation
import Testing

/// A session renewed by use is saved by the client, with no request of its own,
/// and `whoami` says when it lapses. The server's clock is moved by --clock-offset-file.
@Suite(.harness)
struct SessionRenewalTests {
    struct Saved: Decodable { var expiresAt: String? }
    struct Whoami: Decodable { var sessionExpiresAt: String?; var offline: Bool? }

    static let day: Double = 86_400

    /// The expiry saved in the profile's session file, as seconds since 1970.
    static func savedExpiry(_ user: User) throws -> Double? {
        let data = try Data(contentsOf: URL(fileURLWithPath: user.home + "/default/session.json"))
        return try JSONDecoder().decode(Saved.self, from: data).expiresAt.flatMap(seconds)
    }

    static func seconds(_ iso: String) -> Double? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: iso)?.timeIntervalSince1970
    }

    static func modified(_ user: User) throws -> Date? {
        try FileManager.default.attributesOfItem(atPath: user.home + "/default/session.json")[.modificationDate] as? Date
    }

    @Test func aRenewedSessionIsSavedAndWhoamiSaysWhenItLapses() throws {
        let clocked = try AccessTokenTests.ClockedServer(extraArguments: ["--session-idle", "30d"])
        let server = clocked.server
        defer { server.stop() }
        let (alice, _) = try server.pair()
        let start = Date().timeIntervalSince1970

        // Login saves the login-time expiry: 30 days on.
        let atLogin = try #require(try Self.savedExpiry(alice), "login saves the session's expiry")
        #expect(abs(atLogin - (start + 30 * Self.day)) < 120, "\(atLogin - start)")

        // Ten days later any command renews it, and the answer's header is saved.
        try clocked.setDay(10)
        let r = try alice.run(["convos"])
        #expect(r.code == 0, "\(r.err)")
        let renewed = try #require(try Self.savedExpiry(alice))
        #expect(abs(renewed - (start + 40 * Self.day)) < 120, "saved \((renewed - start) / Self.day) days on, not 40")

        // Unchanged: the next command does not rewrite the file.
        let before = try Self.modified(alice)
        Thread.sleep(forTimeInterval: 0.05)
        #expect(try alice.run(["convos"]).code == 0)
        #expect(try Self.modified(alice) == before, "the session file is written only when the expiry moved")

        // whoami says it, in text and JSON.
        let text = try alice.run(["whoami"])
        #expect(text.code == 0 && text.out.contains("session: renewed by use; lapses "), "\(text.out)")
        let json = try alice.run(["whoami", "--json"]).decode(Whoami.self)
        let shown = try #require(json.sessionExpiresAt.flatMap(Self.seconds), "whoami --json has sessionExpiresAt")
        #expect(abs(shown - renewed) < 1)

        // Offline, whoami answers from the saved session: the renewed time.
        server.stop()
        let offline = try alice.run(["whoami", "--json"])
        #expect(offline.code == 0, "\(offline.err)")
        let saved = try offline.decode(Whoami.self)
        #expect(saved.offline == true && saved.sessionExpiresAt.flatMap(Self.seconds).map { abs($0 - renewed) < 1 } == true,
                "\(offline.out)")
    }

    /// A logout answers with the header too; the session file it deleted stays deleted.
    @Test func logoutLeavesNoSessionBehind() throws {
        let clocked = try AccessTokenTests.ClockedServer(extraArguments: ["--session-idle", "30d"])
        let server = clocked.server
        defer { server.stop() }
        let (alice, _) = try server.pair()
        try clocked.setDay(10)
        #expect(try alice.run(["logout"]).code == 0)
        #expect(!FileManager.default.fileExists(atPath: alice.home + "/default/session.json"))
    }

    /// The header itself, as documented: on a session's answers, not on an access token's.
    @Test func theHeaderIsOnASessionsAnswers() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, _) = try server.pair()
        let data = try Data(contentsOf: URL(fileURLWithPath: alice.home + "/default/session.json"))
        let token = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])["token"] as? String
        let r = try runTool("curl", ["-s", "-D", "-", "-o", "/dev/null", "-H", "Authorization: Bearer \(token ?? "")", server.url + "/v1/me"])
        let line = r.out.split(separator: "\r\n").first { $0.lowercased().hasPrefix("nexus-session-expires:") }
        let value = try #require(line, "\(r.out)").split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)
        #expect(Self.seconds(value) != nil, "an ISO 8601 time: \(value)")
    }
}
