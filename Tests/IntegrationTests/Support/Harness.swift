import Foundation
import Testing

/// Paths of the real binaries: $NEXUSCTL_BIN and $NEXUSD_BIN, else the debug builds
/// that `make test` makes first.
enum Binaries {
    /// The repository: this file is Tests/IntegrationTests/Support/Harness.swift.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    static let nexusctl = ProcessInfo.processInfo.environment["NEXUSCTL_BIN"] ?? root + "/.build/debug/nexusctl"
    static let nexusd = ProcessInfo.processInfo.environment["NEXUSD_BIN"] ?? root + "/Server/.build/debug/nexusd"
}

/// Every folder a test makes lives under one root per test process, removed when the
/// process exits, so runs leave nothing behind.
private let testRoot: String = {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-tests-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: FileManager.default.temporaryDirectory.appendingPathComponent("nexus-tests-\(getpid())").path) }
    return root
}()

func makeTempDir(_ label: String) throws -> String {
    let dir = testRoot + "/\(label)-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// A real nexusd on a free loopback port with its own database (see Backend), or
/// sharing one with other replicas when `database` is given.
final class TestServer {
    let process = Process()
    let directory: String
    let databasePath: String
    private(set) var url = ""
    private let out = LineCollector()
    let log = LineCollector()

    init(
        directory: String? = nil, port: Int = 0, database: String? = nil, logLevel: String = "warning", extraArguments: [String] = [],
        environment: [String: String] = [:]
    ) throws {
        self.directory = try directory ?? makeTempDir("server")
        self.databasePath = try database ?? Backend.database(for: self.directory)
        process.executableURL = URL(fileURLWithPath: Binaries.nexusd)
        process.arguments = ["--listen", "127.0.0.1:\(port)", "--db", databasePath, "--bcrypt-cost", "4", "--log-level", logLevel]
            + extraArguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        try launch(process, out: out, err: log)
        guard let url = out.value(after: "nexusd listening on ") else {
            process.terminate()
            throw HarnessError("nexusd did not start: \(log.text)")
        }
        self.url = url
    }

    var port: Int { Int(url.split(separator: ":").last!)! }

    /// alice and bob, registered on this server (as Alice and Bob), each with a home of their own.
    func pair() throws -> (User, User) {
        let alice = try User("alice", server: url)
        let bob = try User("bob", server: url)
        try alice.register(name: "Alice")
        try bob.register(name: "Bob")
        return (alice, bob)
    }

    /// Alice, Bob and Carol (named `carol`), registered: the smallest group.
    func trio(carol name: String = "Carol") throws -> (User, User, User) {
        let (alice, bob) = try pair()
        let carol = try User("carol", server: url)
        try carol.register(name: name)
        return (alice, bob, carol)
    }

    /// SIGTERM, and wait for the graceful exit: a failure, and a kill, after 30 s, so that a
    /// shutdown that hangs fails its test instead of stalling the run.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        if !ends(process, within: 30) {
            Issue.record("nexusd did not stop within 30 s of SIGTERM: \(log.text.suffix(2000))")
            kill9()
        }
    }

    func kill9() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { kill9() }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

struct Result {
    var code: Int32
    var out: String
    var err: String
    var lines: [String] { out.split(separator: "\n").map(String.init) }

    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(out.utf8), options: [.fragmentsAllowed])
    }
}

/// One person at a terminal: their own NEXUS_HOME, talking to one server.
struct User {
    let email: String
    let home: String
    /// NEXUS_SERVER; empty leaves it unset.
    var server: String
    var noColor = true
    var extraEnvironment: [String: String] = [:]

    init(_ name: String, server: String) throws {
        self.email = "\(name)@example.com"
        self.home = try makeTempDir("home-\(name)")
        self.server = server
    }

    /// The same person with another NEXUS_HOME (a copy of their profile, say).
    init(copying other: User, home: String) {
        self.email = other.email
        self.home = home
        self.server = other.server
        self.noColor = other.noColor
        self.extraEnvironment = other.extraEnvironment
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["NEXUS_HOME"] = home
        env["NEXUS_SERVER"] = server.isEmpty ? nil : server
        env["NO_COLOR"] = noColor ? "1" : nil
        env.removeValue(forKey: "NEXUS_PROFILE")
        // A config file of the developer's own must not leak into tests.
        env["XDG_CONFIG_HOME"] = home + "/no-config"
        for (k, v) in extraEnvironment { env[k] = v }
        return env
    }

    /// nexusctl as a shell starts it: with SIGPIPE at its default action, which it would
    /// otherwise inherit ignored from this test process (an ignored signal stays ignored
    /// across exec), hiding a nexusctl killed by a write to a closed connection.
    func nexusctl(_ args: [String]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal=PIPE", Binaries.nexusctl] + args
        process.environment = environment
        return process
    }

    @discardableResult
    func run(_ args: [String], stdin: String? = nil) throws -> Result {
        try runToEnd(nexusctl(args), stdin: stdin)
    }

    /// Starts a long-running command such as `tail -f`; stop it with `terminate()`.
    func spawn(_ args: [String]) throws -> (Process, LineCollector, LineCollector) {
        let process = nexusctl(args)
        let outLines = LineCollector(), errLines = LineCollector()
        process.standardInput = FileHandle.nullDevice
        try launch(process, out: outLines, err: errLines)
        return (process, outLines, errLines)
    }

    func register(name: String? = nil) throws {
        let r = try run(["register", email, "--password-stdin"] + (name.map { ["--name", $0] } ?? []), stdin: "password123\n")
        guard r.code == 0 else { throw HarnessError("register \(email) failed: \(r.err)") }
    }
}

import NexusCore

extension User {
    /// This user's API session, read from the profile nexusctl saved.
    func api() throws -> NexusAPI {
        let session = try #require(try Profile(name: "default", home: home).loadSession())
        return NexusAPI(
            addresses: try ServerAddress.list(parsing: server), token: session.token,
            tls: TLSOptions(caFile: extraEnvironment["NEXUS_CACERT"]))
    }

    /// Every message in this user's feed, from the server, in feed order.
    func serverMessages() throws -> [Message] {
        let api = try api()
        var cursor: Int64 = 0
        var messages: [Message] = []
        while true {
            let page = try api.sync(after: cursor)
            messages += page.events.compactMap(\.message)
            if page.events.isEmpty { return messages }
            cursor = page.cursor
        }
    }

    /// Queues `count` messages while the server is down: one `send --each-line`, so the
    /// outbox holds them all before anything is tried. Returns their localIds in order.
    func queueOffline(_ count: Int, to conversation: String, prefix: String = "m") throws -> [String] {
        let lines = (1...count).map { "\(prefix) \($0)" }.joined(separator: "\n") + "\n"
        let r = try run(["send", conversation, "--each-line", "--json"], stdin: lines)
        guard r.code == 75 else { throw HarnessError("expected exit 75 (queued), got \(r.code): \(r.err)") }
        return try r.decode([SentJSON].self).map(\.localId)
    }

    /// Logs out on the server but puts the session file back, so this user holds a token
    /// the server has revoked: the next request meets a 401.
    func revokeTokenKeepingSession() throws {
        let path = home + "/default/session.json"
        let session = try String(contentsOfFile: path, encoding: .utf8)
        guard try run(["logout"]).code == 0 else { throw HarnessError("logout failed") }
        try session.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    func outboxEntries() throws -> [QueueEntryJSON] {
        try run(["queue", "--json"]).decode([QueueEntryJSON].self)
    }
}

func jsonLines(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}
