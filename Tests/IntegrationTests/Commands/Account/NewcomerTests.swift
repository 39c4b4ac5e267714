import Foundation
import Testing

/// What a newcomer tripped on, with the real binaries.
@Suite(.harness)
struct NewcomerTests {
    @Test func theOutboxListsWithoutALogin() throws {
        let nobody = try User("nobody", server: "http://127.0.0.1:9")
        let listed = try nobody.run(["queue"])
        #expect(listed.code == 0, "\(listed.err)")
        #expect(listed.err.contains("The outbox is empty"))
        let json = try nobody.run(["queue", "list", "--json"])
        #expect(json.code == 0, "\(json.err)")
        #expect(json.out.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        // Flushing talks to the server, so it still needs the login.
        #expect(try nobody.run(["queue", "flush"]).code == 4)
    }

    @Test func failedMessagesShowAsFailedNotQueued() throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try User("alice", server: server.url)
        try alice.register(name: "Alice")
        // Refused at once, it keeps nothing; queued offline, it fails at the flush and stays.
        #expect(try alice.run(["send", "nobody@example.com", "hello?"]).code == 3)
        server.stop()
        #expect(try alice.run(["send", "nobody@example.com", "hello?"]).code == 75)
        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        let flushed = try alice.run(["queue", "flush", "--now"])
        #expect(flushed.code != 0, "\(flushed.out) \(flushed.err)")

        let queue = try alice.run(["queue"])
        let row = try #require(queue.lines.first { $0.contains("nobody@example.com") })
        let columns = row.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        #expect(columns[2] == "failed" && columns[4] == "-", "a failed message is not due: \(row)")

        let profiles = try alice.run(["profiles"])
        #expect(profiles.out.contains("1 failed") && !profiles.out.contains("queued"), "\(profiles.out)")
        let json = try #require(try alice.run(["profiles", "--json"]).json() as? [[String: Any]])
        #expect(json.first?["failed"] as? Int == 1 && json.first?["queued"] as? Int == 0)
    }
}

extension NewcomerTests {
    @Test func aSendToAnUnknownUserSaysTheUserDoesNotExist() throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try User("alice", server: server.url)
        try alice.register(name: "Alice")
        let sent = try alice.run(["send", "nobody@example.com", "hello?"])
        #expect(sent.code == 3)
        #expect(sent.err.contains("no user nobody@example.com exists"), "\(sent.err)")
        #expect(!sent.err.contains("try again"), "trying again can't help: \(sent.err)")
        #expect(sent.err.contains("hint: check the address"))
    }
}

extension NewcomerTests {
    /// Runs nexusctl as `user` with stdout on `path` (such as /dev/full).
    func run(_ user: User, _ args: [String], stdoutTo path: String) throws -> (code: Int32, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.nexusctl)
        process.arguments = args
        process.environment = user.environment
        process.standardOutput = try #require(FileHandle(forWritingAtPath: path))
        process.standardInput = FileHandle.nullDevice
        let err = try launch(process) {
            let err = Pipe()
            process.standardError = err
            return err
        }
        let data = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func aFailedWriteOnStdoutIsAnError() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let opened = try alice.run(["new", bob.email, "--json"])
        let id = String(try opened.decode(OpenedJSON.self).conversation.id)
        #expect(try alice.run(["send", id, "hi"]).code == 0)
        for args in [["convos"], ["history", id, "--json"], ["help", "exit-codes"]] {
            let full = try run(alice, args, stdoutTo: "/dev/full")
            #expect(full.code == 74, "\(args): \(full.err)")
            #expect(full.err.contains("error: could not write to standard output: No space left on device"), "\(args): \(full.err)")
        }
        // A closed pipe stays quiet: no error, and not 74.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The reader is gone before nexusctl starts writing: `true` reads nothing.
        shell.arguments = ["-c", "\"$0\" help | true", Binaries.nexusctl]
        shell.environment = alice.environment
        let piped = try runToEnd(shell)
        #expect(piped.out.isEmpty && piped.err.isEmpty, "\(piped.err)")
    }
}

extension NewcomerTests {
    @Test func registerWithAnUnwritableHomeCreatesNoAccount() throws {
        let server = try TestServer()
        defer { server.stop() }
        let good = try User("alice", server: server.url)
        let file = good.home + "/a-file"
        try Data().write(to: URL(fileURLWithPath: file))
        var bad = good
        bad.extraEnvironment["NEXUS_HOME"] = file + "/x"
        let failed = try bad.run(["register", good.email, "--password-stdin"], stdin: "password123\n")
        #expect(failed.code == 6, "\(failed.err)")
        #expect(failed.err.contains("nothing was sent"), "\(failed.err)")
        // The account was never made, so the same register works with a good home.
        let retried = try good.run(["register", good.email, "--password-stdin"], stdin: "password123\n")
        #expect(retried.code == 0, "\(retried.err)")
    }
}

extension NewcomerTests {
    @Test func accountHintsNameTheFixNotWhatWasJustRun() throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try User("alice", server: server.url)
        try alice.register(name: "Alice")
        let wrong = try alice.run(["login", alice.email, "--password-stdin"], stdin: "not-the-password\n")
        #expect(wrong.code == 4)
        #expect(!wrong.err.contains("log in with"), "\(wrong.err)")
        #expect(wrong.err.contains("hint: check the email and the password"), "\(wrong.err)")

        let again = try alice.run(["--profile", "work", "register", alice.email, "--password-stdin"], stdin: "password123\n")
        #expect(again.code == 1)
        #expect(again.err.contains("hint: run `nexusctl --profile work login \(alice.email)`."), "\(again.err)")
    }
}

extension NewcomerTests {
    @Test func typingSaysWhatItDidUnlessQuiet() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let id = String(try alice.run(["new", bob.email, "--json"]).decode(OpenedJSON.self).conversation.id)
        let said = try alice.run(["typing", id])
        #expect(said.code == 0)
        #expect(said.out.isEmpty)
        #expect(said.err == "Told the others in conversation \(id) that you are typing (for 3 s).\n", "\(said.err)")
        let quiet = try alice.run(["-q", "typing", id])
        #expect(quiet.code == 0 && quiet.out.isEmpty && quiet.err.isEmpty)
    }
}

extension NewcomerTests {
    /// One rule, first choice first: --server, $NEXUS_SERVER, the profile's saved server,
    /// the config file's `server =`, the default. `whoami` shows the server it used.
    @Test func serverPrecedenceIsOneRule() throws {
        let server = try TestServer()
        defer { server.stop() }
        let other = try TestServer()
        defer { other.stop() }
        var alice = try User("alice", server: server.url)
        try alice.register(name: "Alice")
        func serverLine(_ user: User, _ args: [String] = []) throws -> String? {
            try user.run(args + ["whoami"]).lines.first { $0.hasPrefix("server:") }.map { String($0.dropFirst("server:".count)).trimmingCharacters(in: .whitespaces) }
        }
        // The config file's server loses to the profile's saved one.
        let config = alice.home + "/no-config/nexus"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try "server = \(other.url)\n".write(toFile: config + "/config", atomically: true, encoding: .utf8)
        alice.server = ""
        #expect(try serverLine(alice) == server.url)
        // $NEXUS_SERVER beats the profile's (another nexusd: the token is unknown there).
        alice.server = other.url
        let env = try alice.run(["whoami"])
        #expect(env.code == 4, "the environment's server was asked: \(env.err)")
        // --server beats $NEXUS_SERVER, and whoami prints the server it was given.
        #expect(try serverLine(alice, ["--server", server.url]) == server.url)
        alice.server = server.url
        // One that is down is named, and not answered for from the session saved for another.
        let given = try alice.run(["--server", "http://127.0.0.1:9", "whoami"])
        #expect(given.code == 75 && given.err.contains("can't reach the server at http://127.0.0.1:9"), "\(given.out)\(given.err)")
        // --help states the same order.
        let help = try alice.run(["--help"]).out
        #expect(help.contains("default: $NEXUS_SERVER, else the server the profile logged in to, else the config file's"))
    }
}

extension NewcomerTests {
    /// Reusing a direct conversation takes no id: the next conversation gets the next one.
    @Test func aReusedDirectConversationLeavesNoGapInIds() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let carol = try User("carol", server: server.url)
        try carol.register(name: "Carol")
        func open(_ user: User, _ emails: [String]) throws -> Int64 {
            let r = try user.run(["new"] + emails + ["--json"])
            #expect(r.code == 0, "\(r.err)")
            return try r.decode(OpenedJSON.self).conversation.id
        }
        let first = try open(alice, [bob.email])
        #expect(try open(alice, [bob.email]) == first)
        #expect(try open(bob, [alice.email]) == first)
        #expect(try open(alice, [bob.email]) == first)
        #expect(try open(alice, [carol.email]) == first + 1, "the reuses took ids")
        #expect(try open(bob, [alice.email, carol.email]) == first + 2)
    }
}

extension NewcomerTests {
    /// nexusd(1), which nexusctl(1) refers to, is made from nexusd's declarations by
    /// `make docs`; the committed copy must not fall behind.
    @Test func theNexusdManPageMatchesTheBinary() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.nexusd)
        process.arguments = ["--generate-manual"]
        let generated = try runToEnd(process)
        #expect(generated.code == 0)
        let committed = try String(contentsOfFile: Binaries.root + "/docs/nexusd.1", encoding: .utf8)
        #expect(generated.out == committed, "run `make docs`")
        #expect(committed.contains(".B \\-\\-log\\-level <log\\-level>"))
        // --help's own paragraphs are not broken mid-sentence by the source's line breaks.
        let help = Process()
        help.executableURL = URL(fileURLWithPath: Binaries.nexusd)
        help.arguments = ["--help"]
        let text = try runToEnd(help).out
        #expect(text.contains("It prints \"nexusd listening on http://HOST:PORT\" on stdout once it accepts\nconnections"), "\(text)")
    }
}
