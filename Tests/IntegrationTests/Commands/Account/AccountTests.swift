import Foundation
import Testing

/// The account itself: its registration time, `passwd` and `profile`, with the real
/// binaries (docs/protocol.md, `PATCH /v1/me` and `POST /v1/me/password`).
@Suite(.harness)
struct AccountTests {
    /// bob again, logged in from a home of his own (another machine).
    private static func laptop(_ bob: User, password: String = "password123") throws -> User {
        let laptop = User(copying: bob, home: try makeTempDir("home-laptop"))
        let r = try laptop.run(["login", bob.email, "--password-stdin"], stdin: password + "\n")
        #expect(r.code == 0, "\(r.err)")
        return laptop
    }

    @Test func passwdEndsTheOtherSessionsAndTheirHeldPollsButNotThisOne() throws {
        let server = try TestServer(logLevel: "debug")
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "hello"]).code == 0)
        let laptop = try Self.laptop(bob)
        let tail = try laptop.spawn(["tail", "-f", "--json"])
        #expect(tail.1.wait { $0.contains { $0.contains("hello") } }, "\(tail.2.text)")
        #expect(server.log.wait { $0.contains { $0.contains("long poll held") } }, "\(server.log.text.suffix(2000))")

        let changed = try bob.run(["passwd", "--password-stdin", "--json"], stdin: "password123\nnew-password\n")
        #expect(changed.code == 0, "\(changed.err)")
        #expect(changed.out.contains(#""otherSessionsEnded":true"#), "\(changed.out)")
        // The laptop's held poll ends at once, as for a logout, and its session is gone.
        #expect(ends(tail.0, within: 5) && tail.0.terminationStatus == 4, "\(tail.2.text)")
        if tail.0.isRunning { tail.0.terminate(); tail.0.waitUntilExit() }
        #expect(try laptop.run(["convos"]).code == 4)
        // This session goes on; the old password no longer logs in, the new one does.
        #expect(try bob.run(["convos"]).code == 0)
        let old = try laptop.run(["login", bob.email, "--password-stdin"], stdin: "password123\n")
        #expect(old.code == 4, "\(old.err)")
        #expect(try laptop.run(["login", bob.email, "--password-stdin"], stdin: "new-password\n").code == 0)
    }

    @Test func passwdKeepSessionsLeavesTheOthersLoggedIn() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (_, bob) = try server.pair()
        let laptop = try Self.laptop(bob)
        let changed = try bob.run(["passwd", "--password-stdin", "--keep-sessions"], stdin: "password123\nnew-password\n")
        #expect(changed.code == 0, "\(changed.err)")
        #expect(try laptop.run(["convos"]).code == 0)
    }

    @Test func passwdRefusesAWrongOldPasswordAShortNewOneAndAToken() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (_, bob) = try server.pair()
        let wrong = try bob.run(["passwd", "--password-stdin"], stdin: "not-my-password\nnew-password\n")
        #expect(wrong.code == 4 && wrong.err.contains("old password"), "\(wrong.code) \(wrong.err)")
        let short = try bob.run(["passwd", "--password-stdin"], stdin: "password123\nshort\n")
        #expect(short.code == 2 && short.err.contains("at least 8 characters"), "\(short.code) \(short.err)")
        // Neither changed it.
        let check = try Self.laptop(bob)
        #expect(try check.run(["whoami"]).code == 0)

        let created = try bob.run(["token", "create", "all", "--scope", "all"])
        #expect(created.code == 0, "\(created.err)")
        var script = User(copying: bob, home: try makeTempDir("home-script"))
        script.extraEnvironment["NEXUS_TOKEN"] = created.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let byToken = try script.run(["passwd", "--password-stdin"], stdin: "password123\nnew-password\n")
        #expect(byToken.code == 4 && byToken.err.contains("tokens can't change the account"), "\(byToken.code) \(byToken.err)")
        let renamed = try script.run(["profile", "--name", "Mallory"])
        #expect(renamed.code == 4, "\(renamed.err)")
    }

    @Test func profileShowsTheRegistrationAndSetsTheNameOthersSee() throws {
        let server = try TestServer()
        defer { server.stop() }
        let before = Date().addingTimeInterval(-2)
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "hello"]).code == 0)

        let whoami = try bob.run(["whoami", "--json"])
        let user = try #require((try whoami.json() as? [String: Any])?["user"] as? [String: Any], "\(whoami.out)")
        let created = try #require(user["createdAt"] as? String, "\(whoami.out)")
        let at = try #require(ISO8601DateFormatter.withFractions.date(from: created) ?? ISO8601DateFormatter().date(from: created))
        #expect(at >= before && at <= Date().addingTimeInterval(2), "\(created)")

        let renamed = try bob.run(["profile", "--name", "  Robert  ", "--json"])
        #expect(renamed.code == 0, "\(renamed.err)")
        let shown = try #require(try renamed.json() as? [String: Any])
        #expect(shown["displayName"] as? String == "Robert" && shown["createdAt"] as? String == created, "\(renamed.out)")
        #expect(try bob.run(["profile"]).out.contains("Robert <bob@example.com>"))
        #expect(try bob.run(["whoami"]).out.contains("Robert <bob@example.com>"))
        let refused = try bob.run(["profile", "--name", ""])
        #expect(refused.code == 2, "\(refused.err)")

        let users = try alice.run(["users", "--json"])
        let listed = try #require((try users.json() as? [[String: Any]])?.first, "\(users.out)")
        #expect(listed["displayName"] as? String == "Robert" && listed["createdAt"] as? String == created, "\(users.out)")
        #expect(try alice.run(["convos", "--json"]).out.contains("Robert"))
    }
}

extension ISO8601DateFormatter {
    static var withFractions: ISO8601DateFormatter {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }
}
