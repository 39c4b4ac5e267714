import Foundation
import NexusCore
import Testing

/// "tail never skips, never repeats" with real `tail -f --json`
/// processes against the real nexusd: killed and restarted, side by side, across a restore
/// of the server's database, and behind a hook that doesn't read its stdin.
@Suite(.serialized) struct TailPromiseTests {
    /// A message line of `tail --json` by what names it: conversation and seq.
    struct Seen: Hashable {
        var conversationId: Int64
        var seq: Int64
        var text: String
    }

    static func messages(_ lines: [String]) -> [Seen] {
        jsonLines(lines.joined(separator: "\n")).compactMap { line in
            guard line["type"] as? String == "message", let c = line["conversationId"] as? Int64 ?? (line["conversationId"] as? Int).map(Int64.init),
                  let seq = line["seq"] as? Int64 ?? (line["seq"] as? Int).map(Int64.init), let text = line["text"] as? String
            else { return nil }
            return Seen(conversationId: c, seq: seq, text: text)
        }
    }

    /// Bursts of messages, each burst one batch of the feed; after each, bob's tail is
    /// stopped by `signal` as soon as it prints, mid-batch. Returns what each run printed.
    func killAndRestart(signal: Int32, rounds: Int, burst: Int) throws -> (runs: [[Seen]], total: Int, cutLines: Int) {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["new", bob.email]).code == 0)
        // A first run saves a position, so every later run resumes from one.
        #expect(try alice.run(["send", bob.email, "ready"]).code == 0)
        let (first, firstOut, _) = try bob.spawn(["tail", "-f", "--json"])
        #expect(firstOut.wait { $0.count == 1 })
        first.terminate()
        first.waitUntilExit()
        var runs: [[Seen]] = [Self.messages(firstOut.lines)]
        var sent = 1
        var cutLines = 0
        for round in 0..<rounds {
            let tail = try SlowReader(bob, ["tail", "-f", "--json"])
            // Long lines: the batch is far larger than a pipe holds.
            let lines = (1...burst).map { "r\(round) m\($0) " + String(repeating: "x", count: 16_000) }.joined(separator: "\n") + "\n"
            #expect(try alice.run(["send", bob.email, "--each-line"], stdin: lines).code == 0)
            sent += burst
            // Read the first line, then stop reading: the tail blocks in the middle of the
            // batch, with a full pipe. Stop it there, and read all it wrote to the end.
            let text = tail.stopInTheMiddle(with: signal)
            #expect(!text.isEmpty, "round \(round): the tail printed nothing: \(tail.err.text)")
            if !text.hasSuffix("\n") { cutLines += 1 }
            runs.append(Self.messages(text.split(separator: "\n").map(String.init)))
        }
        let (tail, out, err) = try bob.spawn(["tail", "-f", "--json"])
        let caughtUp = out.wait(timeout: 30, interval: 0.2) { _ in Set(runs.flatMap { $0 } + Self.messages(out.lines)).count >= sent }
        tail.terminate()
        tail.waitUntilExit()
        #expect(caughtUp, "the last run did not catch up: \(err.text)")
        runs.append(Self.messages(out.lines))
        return (runs, sent, cutLines)
    }

    @Test func sigtermAndSigintRepeatNothing() throws {
        for signal in [SIGTERM, SIGINT] {
            let (runs, total, cutLines) = try killAndRestart(signal: signal, rounds: 12, burst: 25)
            let all = runs.flatMap { $0 }
            #expect(cutLines == 0, "signal \(signal): \(cutLines) run(s) ended in the middle of a line")
            #expect(Set(all).count == total, "signal \(signal): some messages were skipped")
            #expect(all.count == Set(all).count, "signal \(signal): \(all.count - Set(all).count) line(s) printed twice")
        }
    }

    @Test func sigkillRepeatsAtMostTheLineBeingWritten() throws {
        let (runs, total, _) = try killAndRestart(signal: SIGKILL, rounds: 12, burst: 25)
        let all = runs.flatMap { $0 }
        #expect(Set(all).count == total, "some messages were skipped")
        var seen = Set<Seen>()
        for (i, run) in runs.enumerated() {
            let repeated = run.filter { seen.contains($0) }
            // Only the line the killed run was writing (its last) may come again.
            if i > 0 {
                #expect(repeated.count <= 1 && repeated.allSatisfy { $0 == runs[i - 1].last }, "run \(i) repeated \(repeated)")
            }
            seen.formUnion(run)
        }
    }

    @Test func namedPositionsFollowSideBySideAndOneIsNeverShared() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "before"]).code == 0)
        let (first, firstOut, firstErr) = try bob.spawn(["tail", "-f", "--json"])
        let (second, secondOut, secondErr) = try bob.spawn(["tail", "-f", "--json", "--cursor", "hook"])
        defer { first.terminate(); second.terminate() }
        #expect(firstOut.wait { $0.count == 1 } && secondOut.wait { $0.count == 1 }, "\(firstErr.text) \(secondErr.text)")

        // A second follower of a position in use would silently skip the other's messages.
        let refused = try runBriefly(bob, ["tail", "-f", "--json", "--cursor", "hook"])
        #expect(refused.code == 2, "\(refused.err)")
        #expect(refused.err.contains("--cursor NAME") && refused.err.contains("cursor-all@hook"), "\(refused.err)")
        #expect(refused.out.isEmpty)
        #expect(try runBriefly(bob, ["tail", "-f", "--json"]).code == 2)
        #expect(try runBriefly(bob, ["tail", "--cursor", "x"]).code == 2, "--cursor needs -f")
        #expect(try runBriefly(bob, ["tail", "-f", "--cursor", "../x"]).code == 2)

        for i in 1...3 { #expect(try alice.run(["send", bob.email, "live \(i)"]).code == 0) }
        #expect(firstOut.wait { $0.count == 4 } && secondOut.wait { $0.count == 4 })
        first.terminate(); second.terminate()
        first.waitUntilExit(); second.waitUntilExit()

        // Each name resumes from its own position.
        for i in 4...5 { #expect(try alice.run(["send", bob.email, "live \(i)"]).code == 0) }
        let (again, againOut, _) = try bob.spawn(["tail", "-f", "--json", "--cursor", "hook"])
        defer { again.terminate() }
        #expect(againOut.wait { $0.count == 2 })
        #expect(Self.messages(againOut.lines).map(\.text) == ["live 4", "live 5"])
        #expect(FileManager.default.fileExists(atPath: bob.home + "/default/cursor-all@hook"))
    }

    @Test func aDamagedOrNegativePositionIsNamedNotReplayed() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        for i in 1...12 { #expect(try alice.run(["send", bob.email, "m\(i)"]).code == 0) }
        let path = bob.home + "/default/cursor-all"
        try FileManager.default.createDirectory(atPath: bob.home + "/default", withIntermediateDirectories: true)
        for content in ["garbage\n", "-1\n", ""] {
            try content.write(toFile: path, atomically: true, encoding: .utf8)
            let r = try runBriefly(bob, ["tail", "-f", "--json"])
            #expect(r.code == 6, "\(content.debugDescription): \(r.code) \(r.err)")
            #expect(r.err.contains(path) && r.out.isEmpty, "\(r.err)")
        }
        // -n says where to start: a warning, and the newest N.
        let (tail, out, err) = try bob.spawn(["tail", "-f", "--json", "-n", "2"])
        defer { tail.terminate() }
        #expect(out.wait { $0.count == 2 })
        #expect(err.wait { _ in err.text.contains(path) && err.text.contains("warning") }, "\(err.text)")
        #expect(Self.messages(out.lines).map(\.text) == ["m11", "m12"])
    }

    @Test func afterARestoreBothARunningAndARestartedTailWarnAndGoOn() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        for i in 1...3 { #expect(try alice.run(["send", bob.email, "kept \(i)"]).code == 0) }
        let port = server.port
        server.stop()
        let backup = try DatabaseBackup(of: server.databasePath, in: server.directory)
        var current = try TestServer(directory: server.directory, port: port)

        let (running, runningOut, runningErr) = try bob.spawn(["tail", "-f", "--json"])
        defer { running.terminate() }
        let (restarted, restartedOut, _) = try bob.spawn(["tail", "-f", "--json", "--cursor", "later"])
        #expect(runningOut.wait { $0.count == 3 } && restartedOut.wait { $0.count == 3 })
        for i in 1...5 { #expect(try alice.run(["send", bob.email, "lost \(i)"]).code == 0) }
        #expect(runningOut.wait { $0.count == 8 } && restartedOut.wait { $0.count == 8 }, "\(runningErr.text)")
        restarted.terminate()
        restarted.waitUntilExit()

        current.stop()
        try backup.restore()
        current = try TestServer(directory: server.directory, port: port)
        defer { current.stop() }
        for i in 1...2 { #expect(try alice.run(["send", bob.email, "new \(i)"]).code == 0) }

        let warned = runningErr.wait(timeout: 20) { _ in runningErr.text.contains("restored or reset") }
        #expect(warned, "the running tail said: \(runningErr.text)")
        #expect(runningOut.wait(timeout: 20) { Self.messages($0).contains { $0.text == "new 2" } }, "running: \(runningOut.text)")

        let (again, againOut, againErr) = try bob.spawn(["tail", "-f", "--json", "--cursor", "later"])
        defer { again.terminate() }
        #expect(againErr.wait(timeout: 15) { _ in againErr.text.contains("restored or reset") }, "restarted: \(againErr.text)")
        #expect(againOut.wait(timeout: 15) { Self.messages($0).contains { $0.text == "new 2" } }, "restarted: \(againOut.text)")
        // And both go on following.
        #expect(try alice.run(["send", bob.email, "new 3"]).code == 0)
        #expect(runningOut.wait { Self.messages($0).contains { $0.text == "new 3" } })
        #expect(againOut.wait { Self.messages($0).contains { $0.text == "new 3" } })
    }

    @Test func aHookThatNeverReadsItsStdinIsKilledAtTheLimit() throws {
        let server = try TestServer()
        let (alice, plainBob) = try server.pair()
        var bob = plainBob
        bob.extraEnvironment["NEXUS_HOOK_TIMEOUT_MS"] = "1000"
        #expect(try alice.run(["send", bob.email, "ready"]).code == 0)
        let (tail, out, err) = try bob.spawn(["tail", "-f", "--json", "--exec", "echo hook says hi; sleep 60"])
        defer { tail.terminate() }
        #expect(out.wait { $0.count == 1 }, "the backlog, without a hook: \(err.text)")
        // Its JSON is larger than a pipe holds: a blocking write would wait for the hook.
        let big = String(repeating: "x", count: Limits.maxTextBytes - 100)
        #expect(try alice.run(["send", bob.email, "-"], stdin: big).code == 0)
        #expect(try alice.run(["send", bob.email, "next"]).code == 0)
        let started = Date()
        #expect(out.wait(timeout: 8) { Self.messages($0).contains { $0.text == "next" } }, "out: \(out.lines.count) lines; err: \(err.text)")
        #expect(Date().timeIntervalSince(started) < 8)
        #expect(err.text.contains("did not finish in 1 s and was killed"), "\(err.text)")
        #expect(err.lines.filter { $0 == "hook says hi" }.count == 2, "the hook's output, a line at a time: \(err.text)")
    }
}

/// A `tail -f` whose stdout the test reads only when it chooses to.
final class SlowReader {
    let process = Process()
    let stdout: Pipe
    let err = LineCollector()

    init(_ user: User, _ args: [String]) throws {
        process.executableURL = URL(fileURLWithPath: Binaries.nexusctl)
        process.arguments = args
        process.environment = user.environment
        // Locals for the closure: self is not whole until the pipe is stored.
        let (process, err) = (process, err)
        stdout = try launch(process) {
            let stdout = Pipe(), stderr = Pipe()
            process.standardOutput = stdout
            process.standardError = stderr
            process.standardInput = FileHandle.nullDevice
            err.attach(stderr)
            return stdout
        }
    }

    /// Waits for a first line, lets the pipe fill while the tail is writing, sends `signal`,
    /// then reads everything to the end (a tail holding a signal off finishes its line).
    func stopInTheMiddle(with signal: Int32) -> String {
        let handle = stdout.fileHandleForReading
        var data = Data()
        while !data.contains(10) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        Thread.sleep(forTimeInterval: 0.3)
        kill(process.processIdentifier, signal)
        data.append(handle.readDataToEndOfFile())
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Runs a command that should end at once; one still running after `timeout` seconds
/// (a `tail -f` that should have been refused) is stopped and gets code nil.
func runBriefly(_ user: User, _ args: [String], timeout: Double = 5) throws -> (code: Int32?, out: String, err: String) {
    let (process, out, err) = try user.spawn(args)
    let ended = ends(process, within: timeout)
    if !ended { process.terminate() }
    process.waitUntilExit()
    usleep(50_000)
    return (ended ? process.terminationStatus : nil, out.text, err.text)
}

/// A copy of a server's database taken while it is stopped, put back later: the SQLite file
/// (with its WAL, if any), or a pg_dump of the PostgreSQL database restored with pg_restore.
struct DatabaseBackup {
    let database: String
    let copy: String

    init(of database: String, in directory: String) throws {
        self.database = database
        copy = directory + "/backup"
        if Backend.postgres == nil {
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: database + suffix) {
                try FileManager.default.copyItem(atPath: database + suffix, toPath: copy + "/db" + suffix)
            }
        } else {
            let dumped = try runTool(Self.pgTool("pg_dump"), ["-Fc", "-f", copy, database])
            guard dumped.code == 0 else { throw HarnessError("pg_dump failed: \(dumped.err)") }
        }
    }

    func restore() throws {
        if Backend.postgres == nil {
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: database + suffix)
                if FileManager.default.fileExists(atPath: copy + "/db" + suffix) {
                    try FileManager.default.copyItem(atPath: copy + "/db" + suffix, toPath: database + suffix)
                }
            }
        } else {
            let restored = try runTool(Self.pgTool("pg_restore"), ["--clean", "--if-exists", "--single-transaction", "-d", database, copy])
            guard restored.code == 0 else { throw HarnessError("pg_restore failed: \(restored.err)") }
        }
    }

    static func pgTool(_ name: String) -> String {
        let psql = ProcessInfo.processInfo.environment["NEXUS_TEST_PSQL"] ?? "psql"
        return psql.hasSuffix("/psql") ? String(psql.dropLast(4)) + name : name
    }
}
