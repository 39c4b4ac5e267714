import Foundation
import Testing

/// Hardening through the real binaries: passwords stay secret, failed logins are limited,
/// and tokens expire, each seen the way a user of nexusctl sees it.
struct CredentialHardeningTests {
    /// The password goes in on stdin only. Afterwards it is nowhere: not in nexusd's log at
    /// its most verbose, not under $NEXUS_HOME, not in the database.
    @Test func passwordsNeverAppearInArgvLogsOrTheStore() throws {
        let server = try TestServer(logLevel: "trace")
        let alice = try User("alice", server: server.url)
        let password = "pw-\(UUID().uuidString)"
        #expect(try alice.run(["register", alice.email, "--password-stdin"], stdin: password + "\n").code == 0)
        #expect(try alice.run(["logout"]).code == 0)
        #expect(try alice.run(["login", alice.email, "--password-stdin"], stdin: password + "\n").code == 0)
        #expect(try alice.run(["login", alice.email, "--password-stdin"], stdin: "wrong-\(password)\n").code == 4)
        // There is no option that takes a password on the command line.
        for args in [["--password", password], ["--password=" + password]] {
            let inArgv = try alice.run(["login", alice.email] + args)
            #expect(inArgv.code == 2)
            #expect(inArgv.err.contains("takes no password on the command line"), "\(inArgv.err)")
            #expect(!inArgv.err.contains(password))
        }
        server.stop()

        #expect(!server.log.text.isEmpty, "trace logging produced nothing")
        #expect(!server.log.text.contains(password), "the password is in nexusd's log")
        let stored = try Backend.contents(of: server.databasePath)
        #expect(stored.range(of: Data(alice.email.utf8)) != nil, "the database dump does not hold the account")
        #expect(stored.range(of: Data(password.utf8)) == nil, "the password is in the database")
        var searched: [String] = []
        for path in try FileManager.default.subpathsOfDirectory(atPath: alice.home).map({ alice.home + "/" + $0 }) {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            searched.append(path)
            #expect(data.range(of: Data(password.utf8)) == nil, "the password is in \(path)")
        }
        #expect(searched.contains { $0.hasSuffix("session.json") })
    }

    /// Five wrong passwords, then even the right one waits; nexusctl says how long and
    /// exits 75 (try again later), not 4 (wrong password).
    @Test func loginRateLimitIsExplained() throws {
        let server = try TestServer()
        let alice = try User("alice", server: server.url)
        try alice.register()
        for _ in 0..<5 { #expect(try alice.run(["login", alice.email, "--password-stdin"], stdin: "wrong one\n").code == 4) }
        let limited = try alice.run(["login", alice.email, "--password-stdin"], stdin: "password123\n")
        #expect(limited.code == 75)
        #expect(limited.err.contains("too many failed logins for \(alice.email)"), "\(limited.err)")
        #expect(limited.err.contains("wait 900 s") || limited.err.contains("wait 899 s"), "\(limited.err)")
    }

    /// An expired token: nexusctl says the session expired and how to fix it (exit 4);
    /// `login` brings a new token that works.
    @Test func expiredSessionSaysLogInAgain() throws {
        let server = try TestServer(extraArguments: ["--session-idle", "2s"])
        let alice = try User("alice", server: server.url)
        try alice.register()
        #expect(try alice.run(["users"]).code == 0)
        Thread.sleep(forTimeInterval: 2.2)
        let expired = try alice.run(["users"])
        #expect(expired.code == 4)
        #expect(expired.err.contains("session expired"), "\(expired.err)")
        #expect(expired.err.contains("nexusctl login"), "\(expired.err)")
        #expect(try alice.run(["login", alice.email, "--password-stdin"], stdin: "password123\n").code == 0)
        #expect(try alice.run(["users"]).code == 0)
    }
}
