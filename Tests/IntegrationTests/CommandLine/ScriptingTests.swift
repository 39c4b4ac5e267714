import Foundation
import NexusCore
import Testing

/// The scripting contract: exit codes, JSON, colour, profiles, config, hooks,
/// completion. Real nexusd, real nexusctl.
@Suite(.harness)
struct ScriptingTests {
    enum Setup: String, CaseIterable, Sendable {
        case normal, noSession, revoked, serverDown, serverError, unreadableSession
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var args: [String]
        var setup: Setup
        var code: Int32
        var testDescription: String { "\(setup.rawValue): nexusctl \(args.joined(separator: " ")) → \(code)" }
    }

    /// Every command against every situation that applies to it. `C` stands for alice's
    /// conversation with bob, `L` for a failed message's localId.
    static let cases: [Case] = {
        var cases: [Case] = []
        func add(_ args: [String], _ codes: [Setup: Int32]) {
            for (setup, code) in codes { cases.append(Case(args: args, setup: setup, code: code)) }
        }
        let online: [Setup: Int32] = [.normal: 0, .noSession: 4, .revoked: 4, .serverDown: 75, .serverError: 5, .unreadableSession: 6]
        add(["users"], online)
        add(["new", "bob@example.com"], online)
        add(["new", "nobody@example.com"], [.normal: 3])
        add(["whoami"], [.normal: 0, .noSession: 4, .revoked: 4, .serverDown: 75, .serverError: 5, .unreadableSession: 6])
        add(["convos"], [.normal: 0, .noSession: 4, .revoked: 4, .serverDown: 0, .serverError: 5, .unreadableSession: 6])
        add(["send", "C", "hello"], [.normal: 0, .noSession: 4, .revoked: 4, .serverDown: 75, .serverError: 75, .unreadableSession: 6])
        add(["send", "99999", "hello"], [.normal: 3])
        add(["tail", "C"], [.normal: 0, .noSession: 4, .revoked: 4, .serverDown: 0, .serverError: 5, .unreadableSession: 6])
        add(["tail", "99999"], [.normal: 3])
        add(["history", "C"], [.normal: 0, .noSession: 4, .revoked: 4, .serverDown: 0, .serverError: 5, .unreadableSession: 6])
        add(["history", "C", "--before", "id:1"], [.serverDown: 75])
        add(["history", "99999"], [.normal: 3])
        add(["queue"], [.normal: 0, .noSession: 0, .serverDown: 0, .unreadableSession: 0])
        add(["queue", "flush"], [.normal: 0, .noSession: 4, .serverDown: 0, .unreadableSession: 6])
        add(["retry", "L"], [.normal: 0, .noSession: 4, .revoked: 4, .unreadableSession: 6])
        add(["retry", "no-such-local-id"], [.normal: 3])
        add(["logout"], [.normal: 0, .noSession: 4, .revoked: 0, .serverDown: 0, .unreadableSession: 6])
        add(["login", "alice@example.com", "--password-stdin"], [.normal: 0, .serverDown: 75, .serverError: 5])
        add(["register", "zed@example.com", "--password-stdin"], [.normal: 0, .serverDown: 75, .serverError: 5])
        add(["profiles"], [.normal: 0, .noSession: 0])
        add(["cache", "prune"], [.normal: 0, .noSession: 0])
        add(["help", "send"], [.normal: 0])
        add(["completion", "bash"], [.normal: 0])
        // Usage errors, for every command.
        for (path, _) in [(["register"], 0), (["login"], 0), (["logout"], 0), (["whoami"], 0), (["profiles"], 0), (["users"], 0),
                          (["new"], 0), (["convos"], 0), (["send"], 0), (["tail"], 0), (["history"], 0), (["queue"], 0),
                          (["queue", "list"], 0), (["queue", "flush"], 0), (["retry"], 0), (["cache"], 0), (["cache", "prune"], 0),
                          (["help"], 0), (["completion"], 0)]
        {
            add(path + ["--no-such-option"], [.normal: 2])
        }
        // logout revokes the token the other cases' copies of the profile share: it goes last.
        return cases.sorted { ($0.args.first == "logout" ? 1 : 0, $0.testDescription) < ($1.args.first == "logout" ? 1 : 0, $1.testDescription) }
    }()

    /// Runs every case of one setup against one fresh world, so the matrix stays quick.
    @Test(arguments: Setup.allCases)
    func exitCodes(_ setup: Setup) throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let conversation = String(try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id)
        #expect(try alice.run(["send", conversation, "first"]).code == 0)

        for c in Self.cases where c.setup == setup {
            var user = alice
            // A world of its own for each case: a fresh copy of alice's profile.
            let home = try makeTempDir("case")
            try FileManager.default.removeItem(atPath: home)
            try FileManager.default.copyItem(atPath: alice.home, toPath: home)
            user = User(copying: alice, home: home)
            var failedLocalId = "none"
            var proxy: FaultProxy?
            switch setup {
            case .normal, .serverDown, .serverError:
                if c.args.first == "retry" {
                    failedLocalId = try makeFailedMessage(user, conversation: conversation, server: server)
                }
            case .noSession:
                try? FileManager.default.removeItem(atPath: home + "/default/session.json")
            case .revoked:
                if c.args.first == "retry" { failedLocalId = try makeFailedMessage(user, conversation: conversation, server: server) }
                try user.revokeTokenKeepingSession()
            case .unreadableSession:
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: home + "/default/session.json")
            }
            if setup == .serverDown { user.server = "http://127.0.0.1:9" }
            if setup == .serverError {
                let p = try FaultProxy(upstreamPort: server.port)
                p.fail(next: 20, status: 500, body: #"{"error":{"code":"internal","message":"The server hit an internal error."}}"#)
                user.server = p.url
                proxy = p
            }
            let args = c.args.map { $0 == "C" ? conversation : $0 == "L" ? failedLocalId : $0 }
            let r = try user.run(args, stdin: "password123\n")
            #expect(r.code == c.code, "\(c.testDescription): got \(r.code); stderr: \(r.err)")
            if c.code != 0 && c.code != 75 { #expect(r.err.contains("error: "), "\(c.testDescription): no error line") }
            _ = proxy
        }
    }

    /// A failed message in the user's outbox (refused with a 401), and its localId.
    func makeFailedMessage(_ user: User, conversation: String, server: TestServer) throws -> String {
        let proxy = try FaultProxy(upstreamPort: server.port)
        proxy.fail(next: 1, status: 401, body: #"{"error":{"code":"unauthorized","message":"Missing or invalid token."}}"#)
        let r = try user.run(["--server", proxy.url, "send", conversation, "to retry", "--json"])
        guard r.code == 4 else { throw HarnessError("expected a failed send, got \(r.code): \(r.err)") }
        return try r.decode(SentJSON.self).localId
    }

    @Test func jsonOnEveryCommandIsOnlyJSONOnStdout() throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try User("alice", server: server.url)
        let bob = try User("bob", server: server.url)
        #expect(try alice.run(["register", alice.email, "--password-stdin", "--json"], stdin: "password123\n").code == 0)
        try bob.register()
        let conversation = String(try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id)
        let commands: [[String]] = [
            ["whoami"], ["profiles"], ["users"], ["new", bob.email], ["convos"], ["send", conversation, "hi"],
            ["queue"], ["queue", "flush"], ["retry", "--all"], ["history", conversation], ["cache", "prune"],
            ["help", "exit-codes"], ["help", "send"], ["completion", "bash"], ["login", alice.email, "--password-stdin"],
        ]
        for args in commands {
            let r = try alice.run(args + ["--json"], stdin: "password123\n")
            #expect(r.code == 0, "\(args): \(r.err)")
            #expect((try? JSONSerialization.jsonObject(with: Data(r.out.utf8))) != nil, "\(args) printed: \(r.out)")
        }
        for args in [["tail", conversation], ["history", conversation, "--all"]] {
            let r = try alice.run(args + ["--json"])
            #expect(r.code == 0)
            #expect(!r.lines.isEmpty && jsonLines(r.out).count == r.lines.count, "\(args) is not NDJSON: \(r.out)")
        }
        #expect(try alice.run(["logout", "--json"]).json() is [String: Any])
    }

    @Test func fieldsSelectWhatScriptsNeed() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["new", bob.email]).code == 0)

        let users = try #require(try alice.run(["users", "--fields", "email"]).json() as? [[String: Any]])
        #expect(users.map { Array($0.keys) } == [["email"]])
        let convos = try #require(try alice.run(["convos", "--fields", "id,title"]).json() as? [String: Any])
        let first = try #require((convos["conversations"] as? [[String: Any]])?.first)
        #expect(Set(first.keys) == ["id", "title"])
        #expect(first["title"] as? String == "Bob")
        #expect(convos["offline"] as? Bool == false)
        // Beside the items, nested data nobody asked for goes.
        #expect(Set(convos.keys) == ["conversations", "offline"], "\(convos.keys)")

        let unknown = try alice.run(["users", "--fields", "email,phone"])
        #expect(unknown.code == 2)
        #expect(unknown.err.contains("unknown JSON field 'phone'"))
        #expect(unknown.err.contains("id, email, displayName"))
    }

    @Test func colourOnlyWhenAskedOrOnATerminal() throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try User("alice", server: server.url)
        try alice.register()
        var env = alice
        env.noColor = false
        let piped = try env.run(["users", "--search", "x"])
        #expect(!piped.out.contains("\u{1B}["))
        #expect(!piped.err.contains("\u{1B}["))
        let forced = try env.run(["help", "exit-codes", "--color"])
        #expect(forced.out.contains("\u{1B}["))
        let off = try env.run(["help", "exit-codes", "--color", "--no-color"])
        #expect(!off.out.contains("\u{1B}["))
    }

    @Test func profilesConfigAndEnvironmentInOrder() throws {
        let first = try TestServer()
        let second = try TestServer()
        defer { first.stop(); second.stop() }
        let alice = try User("alice", server: first.url)
        try alice.register()
        var work = alice
        work.server = second.url
        #expect(try work.run(["--profile", "work", "register", "alice@work.example", "--password-stdin"], stdin: "password123\n").code == 0)

        let listed = try alice.run(["profiles", "--json"]).decode([ProfileJSON].self)
        #expect(listed.map(\.name) == ["default", "work"])
        #expect(listed.map(\.current) == [true, false])

        // The config file picks the default profile; the environment and flags override it.
        let config = alice.home + "/config"
        try FileManager.default.createDirectory(atPath: config + "/nexus", withIntermediateDirectories: true)
        try "# my settings\nprofile = work\n".write(toFile: config + "/nexus/config", atomically: true, encoding: .utf8)
        var configured = alice
        configured.extraEnvironment = ["XDG_CONFIG_HOME": config]
        configured.server = ""
        func who(_ user: User, _ args: [String] = []) throws -> String? {
            try? user.run(args + ["whoami", "--json"]).decode(AccountJSON.self).user.email
        }
        #expect(try who(configured) == "alice@work.example")
        #expect(try who(configured, ["--profile", "default"]) == "alice@example.com")
        var fromEnv = configured
        fromEnv.extraEnvironment["NEXUS_PROFILE"] = "default"
        #expect(try who(fromEnv) == "alice@example.com")
        #expect(try who(fromEnv, ["--profile", "work"]) == "alice@work.example")

        try "profile = work\ncolour = yes\n".write(toFile: config + "/nexus/config", atomically: true, encoding: .utf8)
        let bad = try configured.run(["whoami"])
        #expect(bad.code == 2)
        #expect(bad.err.contains("config:2: unknown setting 'colour'"))
    }

    @Test func stdinInputNeverWaitsForATerminal() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let none = try alice.run(["send", bob.email, "--each-line"], stdin: "")
        #expect(none.code == 2)
        #expect(none.err.contains("found no lines"))
        let empty = try alice.run(["send", bob.email, "-"], stdin: "")
        #expect(empty.code == 2)
        let lines = try alice.run(["send", bob.email, "--each-line", "--json"], stdin: "one\n\ntwo\nthree")
        #expect(lines.code == 0)
        #expect(try lines.decode([SentJSON].self).count == 3)
        #expect(try bob.serverMessages().map(\.text) == ["one", "two", "three"])
    }

    @Test func execHookGetsEachIncomingMessageAndItsFailureIsReported() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["new", bob.email]).code == 0)
        let dir = try makeTempDir("hook")
        let hook = "cat >> \(dir)/stdin.ndjson; echo \"$NEXUS_SENDER_NAME|$NEXUS_SEQ|$NEXUS_TEXT\" >> \(dir)/env.txt; exit 3"
        let (tail, out, err) = try bob.spawn(["tail", "-f", "--json", "-n", "0", "--exec", hook])
        defer { tail.terminate() }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try alice.run(["send", bob.email, "first"]).code == 0)
        #expect(try bob.run(["send", alice.email, "my own, no hook"]).code == 0)
        #expect(try alice.run(["send", bob.email, "second"]).code == 0)
        #expect(out.wait { $0.count == 3 }, "tail printed: \(out.text) \(err.text)")
        #expect(err.wait { _ in err.text.components(separatedBy: "exited with status 3").count == 3 }, "\(err.text)")
        let env = try String(contentsOfFile: dir + "/env.txt", encoding: .utf8)
        #expect(env == "Alice|1|first\nAlice|3|second\n")
        let stdin = decodeLines(try String(contentsOfFile: dir + "/stdin.ndjson", encoding: .utf8), as: Message.self)
        #expect(stdin.map(\.text) == ["first", "second"])
        #expect(tail.isRunning, "a failing hook stopped the tail")
    }

    @Test func bashCompletionRunsUnderBash() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let id = String(try alice.run(["new", bob.email, "--json"]).decode(ConversationResponse.self).conversation.id)
        func complete(_ words: [String]) throws -> [String] {
            let script = Binaries.root + "/completions/nexusctl.bash"
            let line = "source '\(script)'; COMP_WORDS=(nexusctl " + words.map { "'\($0)'" }.joined(separator: " ")
                + "); COMP_CWORD=\(words.count); _nexusctl; printf '%s\\n' \"${COMPREPLY[@]}\""
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["--noprofile", "--norc", "-c", line]
            var env = alice.environment
            env["PATH"] = (Binaries.nexusctl as NSString).deletingLastPathComponent + ":" + (env["PATH"] ?? "/usr/bin:/bin")
            process.environment = env
            let pipe = try launch(process) {
                let pipe = Pipe()
                process.standardOutput = pipe
                return pipe
            }
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        #expect(try complete(["his"]) == ["history"])
        #expect(try complete(["tail", "--fol"]) == ["--follow"])
        #expect(try complete(["send", ""]) == [id, bob.email])
        #expect(try complete(["send", "bo"]) == [bob.email])
    }
}
