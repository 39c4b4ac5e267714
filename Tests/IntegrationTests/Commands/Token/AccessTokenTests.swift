import Foundation
import NexusCore
import Testing

/// Sliding sessions, scoped access tokens, $NEXUS_TOKEN and bots, with the real
/// binaries. nexusd's clock is moved through --clock-offset-file.
@Suite(.harness)
struct AccessTokenTests {
    /// A server whose clock runs `offset` seconds ahead, as written by `setDay`.
    final class ClockedServer {
        let clockFile: String
        let server: TestServer

        init(extraArguments: [String] = []) throws {
            let directory = try makeTempDir("clocked")
            clockFile = directory + "/clock"
            try AccessTokenTests.setSeconds(0, file: clockFile)
            server = try TestServer(directory: directory, extraArguments: ["--clock-offset-file", clockFile] + extraArguments)
        }

        func setDay(_ day: Double) throws { try AccessTokenTests.setSeconds(Int(day * 86_400), file: clockFile) }
    }

    static func setSeconds(_ seconds: Int, file: String) throws {
        try Data("\(seconds)\n".utf8).write(to: URL(fileURLWithPath: file))
    }

    /// The conversation id that `new` printed.
    static func open(_ user: User, _ others: [String]) throws -> String {
        let r = try user.run(["new"] + others + ["--json"])
        guard r.code == 0 else { throw HarnessError("new \(others) failed: \(r.err)") }
        return String(try r.decode(OpenedJSON.self).conversation.id)
    }

    /// `curl` with a bearer token: the status and the body, byte for byte.
    static func curl(_ method: String, _ url: String, token: String, body: String? = nil) throws -> (status: Int, body: String) {
        var args = ["-s", "-o", "-", "-w", "\n%{http_code}", "-X", method, "-H", "Authorization: Bearer \(token)", url]
        if let body { args += ["-H", "Content-Type: application/json", "--data-binary", body] }
        let r = try runTool("curl", args)
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    // MARK: 1. Sliding sessions

    @Test func aSessionUsedEveryDayNeverLapsesAndAnIdleOneDoes() throws {
        let clocked = try ClockedServer()
        let server = clocked.server
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        // 45 "days", one command a day: far past the 30-day window of its login.
        for day in 1...45 {
            try clocked.setDay(Double(day))
            let r = try alice.run(["convos"])
            #expect(r.code == 0, "day \(day): \(r.err)")
            if r.code != 0 { return }
        }
        // Bob logged in on day 0 and has not been back: past 30 days idle, his session lapsed.
        let lapsed = try bob.run(["convos"])
        #expect(lapsed.code == 4, "an idle session must lapse with the auth code: \(lapsed.err)")
        #expect(lapsed.err.contains("session expired"), "\(lapsed.err)")
        #expect(lapsed.err.contains("nexusctl login"), "the error names the fix: \(lapsed.err)")

        // Alice, idle 29 days (the last week of her window), is still in, and that use
        // renews her for another 30; then 31 idle days end it.
        try clocked.setDay(45 + 29)
        #expect(try alice.run(["convos"]).code == 0)
        try clocked.setDay(45 + 29 + 29)
        #expect(try alice.run(["convos"]).code == 0)
        try clocked.setDay(45 + 29 + 29 + 31)
        let idle = try alice.run(["convos"])
        #expect(idle.code == 4, "\(idle.err)")
        #expect(idle.err.contains("session expired"), "\(idle.err)")

        // Expired rows are deleted (at start-up, and every few minutes after).
        #expect(try Backend.count("SELECT COUNT(*) FROM sessions", on: server.databasePath) == 2)
        server.stop()
        let again = try TestServer(
            directory: server.directory, port: server.port, extraArguments: ["--clock-offset-file", clocked.clockFile])
        defer { again.stop() }
        var left = -1
        for _ in 0..<100 {
            left = try Backend.count("SELECT COUNT(*) FROM sessions", on: server.databasePath)
            if left == 0 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(left == 0, "expired sessions must be deleted")
    }

    @Test func sessionMaxAgeEndsASessionHoweverMuchItIsUsed() throws {
        let clocked = try ClockedServer(extraArguments: ["--session-idle", "30d", "--session-max-age", "40d"])
        let server = clocked.server
        defer { server.stop() }
        let (alice, _) = try server.pair()
        for day in stride(from: 5, through: 35, by: 5) {
            try clocked.setDay(Double(day))
            #expect(try alice.run(["convos"]).code == 0, "day \(day)")
        }
        try clocked.setDay(40.01)
        let r = try alice.run(["convos"])
        #expect(r.code == 4 && r.err.contains("session expired"), "\(r.code) \(r.err)")
    }

    // MARK: 2. A send-scoped token

    @Test func aSendTokenForOneConversationSendsThereOnly() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let carol = try User("carol", server: server.url)
        try carol.register(name: "Carol")
        let a = try Self.open(alice, [bob.email])
        let b = try Self.open(alice, [carol.email])
        let notHers = try Self.open(bob, [carol.email])

        let created = try alice.run(["token", "create", "ci", "--scope", "send", "--conversation", a, "--expires", "30d"])
        #expect(created.code == 0, "\(created.err)")
        let token = created.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("nxt_") && !created.err.contains(token), "the secret goes to stdout alone")
        var ci = try User("ci", server: server.url)
        ci.extraEnvironment["NEXUS_TOKEN"] = token

        // Sends to A.
        let sent = try ci.run(["send", a, "from CI"])
        #expect(sent.code == 0, "\(sent.err)")
        #expect(try bob.run(["history", a]).out.contains("from CI"))

        // 403 reading A, 403 sending to B where alice is a member, 404 where she is not.
        let base = server.url + "/v1/conversations/"
        let readA = try Self.curl("GET", base + a + "/messages", token: token)
        #expect(readA.status == 403 && readA.body.contains("insufficient_scope"), "\(readA)")
        let sendB = try Self.curl("POST", base + b + "/messages", token: token, body: #"{"localId":"t-b","text":"no"}"#)
        #expect(sendB.status == 403 && sendB.body.contains("insufficient_scope"), "\(sendB)")
        let body = #"{"localId":"t-c","text":"no"}"#
        let sendC = try Self.curl("POST", base + notHers + "/messages", token: token, body: body)
        let session = try #require(try Profile(name: "default", home: alice.home).loadSession()).token
        let asSession = try Self.curl("POST", base + notHers + "/messages", token: session, body: body)
        let unknown = try Self.curl("POST", base + "999999/messages", token: session, body: body)
        #expect(sendC.status == 404)
        #expect(sendC.body == asSession.body && sendC.body == unknown.body, "a non-member's 404 is the same bytes for every token")

        // And through nexusctl: the auth code and a sentence naming the scope; not found stays 3.
        let history = try ci.run(["history", a])
        #expect(history.code == 4 && history.err.contains("scope"), "\(history.code) \(history.err)")
        let toB = try ci.run(["send", b, "no"])
        #expect(toB.code != 0 && toB.err.contains("limited to conversations \(a)"), "\(toB.code) \(toB.err)")
        #expect(try ci.run(["send", notHers, "no"]).code == 3)

        // The token can't make tokens; its list shows no secret; a revoked token is refused.
        #expect(try ci.run(["token", "create", "more"]).code == 4)
        let list = try alice.run(["token", "list", "--json"])
        #expect(list.code == 0 && list.out.contains("\"ci\"") && !list.out.contains(token), "\(list.out)")
        #expect(try alice.run(["token", "revoke", "ci"]).code == 0)
        let revoked = try ci.run(["send", a, "after revoke"])
        #expect(revoked.code == 4 && revoked.err.contains("token"), "\(revoked.code) \(revoked.err)")
    }

    @Test func anExpiredTokenGivesTheAuthCodeWithAClearText() throws {
        let clocked = try ClockedServer()
        let server = clocked.server
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let a = try Self.open(alice, [bob.email])
        let token = try alice.run(["token", "create", "short", "--scope", "all", "--expires", "2d"]).out
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // Saved in a profile of its own with --token-stdin.
        let robot = try User("robot", server: server.url)
        let login = try robot.run(["login", "--token-stdin"], stdin: token + "\n")
        #expect(login.code == 0, "\(login.err)")
        #expect(try robot.run(["send", a, "with a saved token"]).code == 0)
        #expect(try robot.run(["history", a]).out.contains("with a saved token"))
        try clocked.setDay(3)
        let r = try robot.run(["convos"])
        #expect(r.code == 4, "\(r.err)")
        #expect(r.err.contains("has expired") && r.err.contains("token create"), "\(r.err)")
    }

    // MARK: 3. Cron with $NEXUS_TOKEN only

    @Test func nexusTokenFlushesTheQueueFromABareCronEnvironment() throws {
        let directory = try makeTempDir("cron-server")
        var server = try TestServer(directory: directory)
        let (alice, bob) = try server.pair()
        let a = try Self.open(alice, [bob.email])
        let token = try alice.run(["token", "create", "cron", "--scope", "send", "--conversation", a]).out
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("nxt_"))

        // A bare HOME: no session, no profile; only the config file's server.
        let home = try makeTempDir("cron-home")
        try FileManager.default.createDirectory(atPath: home + "/.config/nexus", withIntermediateDirectories: true)
        try Data("server = \(server.url)\n".utf8).write(to: URL(fileURLWithPath: home + "/.config/nexus/config"))
        func cron(_ args: [String]) throws -> Result {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Binaries.nexusctl)
            process.arguments = args
            process.environment = ["PATH": "/usr/bin:/bin", "HOME": home, "NEXUS_TOKEN": token]
            let (out, err) = try launch(process) {
                let out = Pipe(), err = Pipe()
                process.standardOutput = out
                process.standardError = err
                process.standardInput = FileHandle.nullDevice
                return (out, err)
            }
            let outData = out.fileHandleForReading.readDataToEndOfFile()
            let errData = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Result(code: process.terminationStatus, out: String(decoding: outData, as: UTF8.self), err: String(decoding: errData, as: UTF8.self))
        }

        // With the server down, the sends queue (75).
        let port = server.port
        server.stop()
        for n in 1...3 {
            let r = try cron(["send", a, "nightly \(n)"])
            #expect(r.code == 75, "\(r.code) \(r.err)")
        }
        server = try TestServer(directory: directory, port: port)
        defer { server.stop() }
        // As cron would, run `queue flush` until the messages' backoff (1 to 4 s after the
        // failed tries) is over: 75 while some wait, then 0.
        var flushed = try cron(["queue", "flush"])
        for _ in 0..<40 where flushed.code == 75 {
            Thread.sleep(forTimeInterval: 0.25)
            flushed = try cron(["queue", "flush"])
        }
        #expect(flushed.code == 0, "\(flushed.code) \(flushed.err)")
        let history = try bob.run(["history", a]).out
        #expect((1...3).allSatisfy { history.contains("nightly \($0)") }, "\(history)")

        // Nothing was saved: no session file anywhere under HOME.
        let files = FileManager.default.enumerator(atPath: home)?.compactMap { $0 as? String } ?? []
        #expect(!files.contains { $0.hasSuffix("session.json") }, "\(files)")
    }

    // MARK: Bots

    @Test func aBotPostsWithItsTokenAndIsMarkedAsABot() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let created = try alice.run(["bot", "create", "deploy-bot", "--scope", "send", "--json"])
        #expect(created.code == 0, "\(created.err)")
        let made = try created.decode(CreatedToken.self)
        #expect(made.user.bot == true && made.user.displayName == "deploy-bot")
        // Bob can't log in as it with a password: it has none.
        #expect(try User(copying: bob, home: try makeTempDir("guess")).run(
            ["login", made.user.email, "--password-stdin"], stdin: "password123\n").code == 4)

        let group = try Self.open(alice, [bob.email, made.user.email])
        var bot = try User("bot", server: server.url)
        bot.extraEnvironment["NEXUS_TOKEN"] = made.token
        #expect(try bot.run(["send", group, "deployed v1.2"]).code == 0)
        #expect(try bob.run(["history", group]).out.contains("deploy-bot [bot]"))
        let convos = try bob.run(["convos", "--json"]).decode(ConvosJSON.self)
        #expect(convos.users.first { $0.email == made.user.email }?.bot == true)
        #expect(convos.users.first { $0.email == alice.email }?.bot == nil, "people carry no bot field")
        #expect(try alice.run(["bot", "list"]).out.contains("deploy-bot [bot]"))

        #expect(try alice.run(["bot", "delete", "deploy-bot"]).code == 0)
        let after = try bot.run(["send", group, "after delete"])
        #expect(after.code == 4, "\(after.code) \(after.err)")
        #expect(try bob.run(["history", group]).out.contains("deployed v1.2"), "its messages stay")
    }
}
