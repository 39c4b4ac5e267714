import Foundation
import Testing

/// A private CA belongs to the profile that uses it: kept from the login that named it, or
/// set for that profile alone in the config file, while other profiles keep the system's.
@Suite(.harness)
struct ProfileCATests {
    static func tlsServer() throws -> (TestServer, certs: String) {
        let certs = try makeTempDir("certs")
        #expect(try runTool("/bin/bash", [Binaries.root + "/Tests/scripts/make-test-certs.sh", certs]).code == 0)
        let server = try TestServer(extraArguments: ["--tls-cert", certs + "/server.pem", "--tls-key", certs + "/server.key"])
        return (server, certs)
    }

    @Test func theProfileKeepsTheCAItRegisteredWith() throws {
        let (server, certs) = try Self.tlsServer()
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)"
        let alice = try User("alice", server: "")
        let made = try alice.run(["register", alice.email, "--name", "Alice", "--server", url, "--cacert", certs + "/ca.pem", "--password-stdin"], stdin: "password123\n")
        #expect(made.code == 0, "\(made.err)")
        // The file it named may go: the profile holds its own copy.
        try FileManager.default.removeItem(atPath: certs + "/ca.pem")
        let convos = try alice.run(["convos"])
        #expect(convos.code == 0, "\(convos.err)")
        // Another profile of the same person, to the same server, has no such trust.
        let other = try alice.run(["--profile", "other", "--server", url, "register", "a2@example.com", "--password-stdin"], stdin: "password123\n")
        #expect(other.code == 7, "\(other.err)")
    }

    @Test func aConfigSectionSetsTheCAForOneProfile() throws {
        let (server, certs) = try Self.tlsServer()
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)"
        var alice = try User("alice", server: "")
        let config = alice.home + "/xdg"
        try FileManager.default.createDirectory(atPath: config + "/nexus", withIntermediateDirectories: true)
        try "[profile work]\nserver = \(url)\ncacert = \(certs)/ca.pem\n".write(toFile: config + "/nexus/config", atomically: true, encoding: .utf8)
        alice.extraEnvironment["XDG_CONFIG_HOME"] = config
        let work = try alice.run(["--profile", "work", "register", alice.email, "--password-stdin"], stdin: "password123\n")
        #expect(work.code == 0, "\(work.err)")
        let plain = try alice.run(["--server", url, "register", "a2@example.com", "--password-stdin"], stdin: "password123\n")
        #expect(plain.code == 7, "the default profile trusted the work CA: \(plain.err)")

        try "[profile work]\nmark-read = yes\n".write(toFile: config + "/nexus/config", atomically: true, encoding: .utf8)
        let refused = try alice.run(["--profile", "work", "convos"])
        #expect(refused.code == 2 && refused.err.contains("can't be set for one profile"), "\(refused.err)")
    }
}
