import Foundation
import NexusCore
import Testing

/// Impersonation through the real binaries, on either backend (see Backend): no account can pose
/// as another one's email, a stranger can't lock an owner out, nexusd's files are its own,
/// and a damaged database is named.
@Suite(.harness)
struct ImpersonationTests {
    /// Raw HTTP with curl, from `source` when given (another loopback address).
    static func post(_ url: String, _ path: String, json: String, token: String? = nil, source: String? = nil) throws -> (status: Int, body: String) {
        var args = ["-s", "-o", "-", "-w", "\n%{http_code}", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", json]
        if let token { args += ["-H", "Authorization: Bearer \(token)"] }
        if let source { args += ["--interface", source] }
        return try curl(args + [url + path])
    }

    static func get(_ url: String, _ path: String, token: String) throws -> (status: Int, body: String) {
        try curl(["-s", "-o", "-", "-w", "\n%{http_code}", "-H", "Authorization: Bearer \(token)", url + path])
    }

    private static func curl(_ args: [String]) throws -> (status: Int, body: String) {
        let r = try runTool("/usr/bin/curl", args)
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    static func register(_ url: String, _ jsonEmail: String, name: String = "Bob") throws -> (status: Int, body: String) {
        try post(url, "/v1/register", json: #"{"email":"\#(jsonEmail)","password":"password123","displayName":"\#(name)"}"#)
    }

    /// The impostor's email and its look-alikes: refused with 400, by raw HTTP and by
    /// nexusctl before sending, and bob shows once in `users`.
    @Test func lookAlikeEmailsAreRefused() throws {
        let server = try TestServer()
        let (alice, _) = try server.pair()
        for hidden in [#"\u0000"#, #"\u200b"#, #"\u2060"#, #"\u00ad"#, #"\u001b"#, #"\u007f"#, #"\u0085"#] {
            let r = try Self.register(server.url, "bob@example.com" + hidden)
            #expect(r.status == 400, "\(hidden): \(r.body)")
            #expect(r.body.contains("invalid_email"), "\(hidden): \(r.body)")
        }
        let mallory = try User("mallory", server: server.url)
        let refused = try mallory.run(["register", "bob@example.com\u{200B}", "--password-stdin"], stdin: "password123\n")
        #expect(refused.code == 2, "\(refused.err)")
        #expect(refused.err.contains("U+200B"), "\(refused.err)")
        let badName = try mallory.run(["register", mallory.email, "--name", "Bob\u{1B}[2J", "--password-stdin"], stdin: "password123\n")
        #expect(badName.code == 2, "\(badName.err)")
        #expect(badName.err.contains("<ESC>[2J") && !badName.err.contains("\u{1B}"), "\(badName.err)")
        let users = try alice.run(["users", "--json"])
        #expect(users.code == 0)
        let emails = try users.decode([NexusCore.User].self).map(\.email)
        #expect(emails == ["bob@example.com"], "\(emails)")
        // One normal form: bob's email in capitals and decomposed forms is bob's account.
        #expect(try Self.register(server.url, "BOB@Example.COM").status == 409)
        #expect(try Self.register(server.url, #"jose\u0301@example.com"#, name: "Jose").status == 201)
        #expect(try Self.register(server.url, "jos\u{E9}@example.com", name: "Jose").status == 409)
        #expect(try alice.run(["new", "JOS\u{C9}@example.com"]).code == 0)
    }

    /// A NUL in a message text is refused by the server (400) on both backends, whatever
    /// the client did; nothing is stored.
    @Test func aNulIsRefusedInTextFields() throws {
        let server = try TestServer()
        let (alice, _) = try server.pair()
        #expect(try alice.run(["new", "bob@example.com"]).code == 0)
        let token = try #require(try alice.api().token)
        let sent = try Self.post(server.url, "/v1/conversations/1/messages", json: #"{"localId":"x1","text":"before\u0000after"}"#, token: token)
        #expect(sent.status == 400, "\(sent.body)")
        #expect(sent.body.contains("invalid_text"), "\(sent.body)")
        let titled = try Self.post(
            server.url, "/v1/conversations", json: #"{"kind":"direct","members":["bob@example.com\u0000"]}"#, token: token)
        #expect(titled.status == 400, "\(titled.body)")
        #expect(try Self.get(server.url, "/v1/conversations/1/messages", token: token).body.contains(#""messages":[]"#))
    }

    /// Failed logins from a stranger's address lock that address out of the account, not
    /// the owner: bob still logs in with nexusctl from his own address.
    @Test func aStrangerCannotLockTheOwnerOut() throws {
        let server = try TestServer()
        let bob = try User("bob", server: server.url)
        try bob.register()
        var statuses: [Int] = []
        for _ in 0..<7 {
            statuses.append(try Self.post(
                server.url, "/v1/login", json: #"{"email":"bob@example.com","password":"guess-guess"}"#, source: "127.0.0.2").status)
        }
        #expect(statuses == [401, 401, 401, 401, 401, 429, 429], "\(statuses)")
        // Brute force stays stopped: the stranger waits even with the right password.
        #expect(try Self.post(
            server.url, "/v1/login", json: #"{"email":"bob@example.com","password":"password123"}"#, source: "127.0.0.2").status == 429)
        let login = try bob.run(["login", bob.email, "--password-stdin"], stdin: "password123\n")
        #expect(login.code == 0, "\(login.err)")
    }

    /// Started the documented way under umask 022, on the default database path whose
    /// folder and file already exist world-readable: nexusd makes them 700 and 600, and
    /// the -wal and -shm files SQLite makes are 600 too.
    @Test func theDatabaseFilesAreOnlyNexusdsUsers() throws {
        let data = try makeTempDir("xdg")
        let folder = data + "/nexusd"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        _ = FileManager.default.createFile(atPath: folder + "/nexus.sqlite", contents: nil, attributes: [.posixPermissions: 0o644])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", #"umask 022; exec "$0" --listen 127.0.0.1:0 --bcrypt-cost 4"#, Binaries.nexusd]
        var env = ProcessInfo.processInfo.environment
        env["XDG_DATA_HOME"] = data
        process.environment = env
        let lines = LineCollector()
        try launch(process, out: lines, err: nil)
        defer { process.terminate(); process.waitUntilExit() }
        let url = try #require(lines.value(after: "nexusd listening on "))
        let alice = try User("alice", server: url)
        try alice.register()
        func mode(_ path: String) throws -> Int { (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1 }
        #expect(try mode(folder) == 0o700)
        for name in ["nexus.sqlite", "nexus.sqlite-wal", "nexus.sqlite-shm"] {
            #expect(try mode(folder + "/" + name) == 0o600, "\(name)")
        }
    }

    /// A damaged database: nexusd refuses to start, exits non-zero, and names the file and
    /// what to do.
    @Test func aDamagedDatabaseIsNamed() throws {
        let folder = try makeTempDir("corrupt")
        let path = folder + "/nexus.sqlite"
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        let r = try runTool(Binaries.nexusd, ["--listen", "127.0.0.1:0", "--db", path])
        #expect(r.code != 0)
        #expect(r.err.contains(path), "\(r.err)")
        #expect(r.err.contains("restore it from a backup"), "\(r.err)")
    }

    /// Rows an older nexusd stored (look-alike emails, one email in two forms, a name that
    /// clears screens) meet the rule at the next start: the look-alikes are disabled with
    /// their sessions revoked, each email keeps one form, the name loses its escape. The
    /// rows are written with SQL, as an older nexusd (or an older replica in a rolling
    /// upgrade) wrote them, over accounts registered the ordinary way.
    @Test func anUpgradeDisablesStoredLookAlikes() throws {
        let directory = try makeTempDir("upgrade")
        let first = try TestServer(directory: directory)
        let database = first.databasePath
        let alice = try User("alice", server: first.url)
        try alice.register(name: "Alice")
        try User("bob", server: first.url).register(name: "Bob")
        // PostgreSQL's text can't hold NUL, so only SQLite ever stored that look-alike.
        var impostors = ["bob@example.com\u{200B}"]
        if Backend.postgres == nil { impostors.append("bob@example.com\u{0}") }
        var tokens: [String] = []
        for (i, email) in impostors.enumerated() {
            let r = try Self.register(first.url, "impostor\(i)@example.com")
            try #require(r.status == 201, "\(r.body)")
            tokens.append(try JSONDecoder().decode(AuthResponse.self, from: Data(r.body.utf8)).token)
            try Backend.execute("UPDATE users SET email = \(Backend.text(email)) WHERE email = 'impostor\(i)@example.com'", on: database)
        }
        #expect(try Self.register(first.url, "jose1@example.com", name: "Jose").status == 201)
        #expect(try Self.register(first.url, "jose2@example.com", name: "Jose").status == 201)
        #expect(try Self.register(first.url, "eve@example.com", name: "Eve").status == 201)
        try Backend.execute("UPDATE users SET email = \(Backend.text("jose\u{301}@example.com")) WHERE email = 'jose1@example.com'", on: database)
        try Backend.execute("UPDATE users SET email = \(Backend.text("jos\u{E9}@example.com")) WHERE email = 'jose2@example.com'", on: database)
        try Backend.execute("UPDATE users SET display_name = \(Backend.text("Eve\u{1B}[2J")) WHERE email = 'eve@example.com'", on: database)
        // Before the restart the look-alike works: that is what the repair is for.
        #expect(try Self.get(first.url, "/v1/me", token: tokens[0]).status == 200)
        first.stop()

        let server = try TestServer(directory: directory, database: database)
        defer { server.stop() }
        for token in tokens { #expect(try Self.get(server.url, "/v1/me", token: token).status == 401) }
        var me = alice
        me.server = server.url
        let users = try me.run(["users", "--json"]).decode([NexusCore.User].self)
        let emails = users.map(\.email)
        #expect(emails.filter { $0 == "bob@example.com" }.count == 1, "\(emails)")
        #expect(emails.filter { $0 == "jos\u{E9}@example.com" }.count == 1, "\(emails)")
        #expect(emails.filter { $0.hasPrefix("disabled:") && $0.hasSuffix("@invalid") }.count == impostors.count + 1, "\(emails)")
        #expect(emails.allSatisfy { $0.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F || $0 == "\u{E9}" } }, "\(emails)")
        #expect(users.contains { $0.displayName == "Eve[2J" }, "\(users)")
        #expect(server.log.text.contains("disabled"), "\(server.log.text)")
        // The owner is untouched.
        #expect(try me.run(["new", "bob@example.com"]).code == 0)
    }
}
