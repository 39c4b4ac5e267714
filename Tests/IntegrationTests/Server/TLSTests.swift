import Foundation
import Testing

/// HTTPS end to end: the real nexusd serving TLS itself (--tls-cert, --tls-key)
/// on loopback, the real nexusctl through the system's OpenSSL, and a throwaway CA made by
/// Tests/scripts/make-test-certs.sh with the openssl CLI. Nothing leaves the machine: the
/// one non-loopback host is under `.invalid`, which never resolves.
@Suite(.harness)
struct TLSTests {
    /// A CA and certificates (see the script), and the pair nexusd serves, which a test
    /// swaps with `serve(_:)` and SIGHUP.
    final class Certificates {
        let directory: String
        var ca: String { directory + "/ca.pem" }
        var liveCert: String { directory + "/live.pem" }
        var liveKey: String { directory + "/live.key" }

        init() throws {
            directory = try makeTempDir("certs")
            let made = try runTool("/bin/bash", [Binaries.root + "/Tests/scripts/make-test-certs.sh", directory])
            guard made.code == 0 else { throw HarnessError("make-test-certs.sh failed: \(made.err)") }
            try serve("server")
        }

        /// Makes NAME.pem and NAME.key (or `key`'s) the pair nexusd reads on start and SIGHUP.
        func serve(_ name: String, key: String? = nil) throws {
            for (from, to) in [(directory + "/\(name).pem", liveCert), (directory + "/\(key ?? name).key", liveKey)] {
                try? FileManager.default.removeItem(atPath: to)
                try FileManager.default.copyItem(atPath: from, toPath: to)
            }
        }
    }

    private func tlsServer(_ certs: Certificates, directory: String? = nil, port: Int = 0) throws -> TestServer {
        try TestServer(directory: directory, port: port, logLevel: "notice", extraArguments: ["--tls-cert", certs.liveCert, "--tls-key", certs.liveKey])
    }

    /// A person whose nexusctl trusts the test CA through $NEXUS_CACERT.
    private func user(_ name: String, _ server: TestServer, _ certs: Certificates) throws -> User {
        var u = try User(name, server: server.url)
        u.extraEnvironment["NEXUS_CACERT"] = certs.ca
        return u
    }

    private func hangUp(_ server: TestServer, expecting line: String, count: Int) -> Bool {
        Foundation.kill(server.process.processIdentifier, SIGHUP)
        return server.log.wait { $0.filter { $0.contains(line) }.count >= count }
    }

    private func texts(_ out: LineCollector) -> [String] {
        jsonLines(out.text).filter { $0["type"] as? String == "message" }.compactMap { $0["text"] as? String }
    }

    /// The subject nexusd's listener shows a new connection, from the openssl CLI.
    private func servedSubject(_ server: TestServer, _ certs: Certificates) throws -> String {
        let r = try runTool("/bin/sh", ["-c", "openssl s_client -connect 127.0.0.1:\(server.port) -CAfile \(certs.ca) </dev/null 2>/dev/null | openssl x509 -noout -subject"])
        return r.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // 1. A trusted server: everything over HTTPS, every message delivered once.
    @Test func trustedServerCarriesRegisterLoginSendTailAndFlushOnce() throws {
        let certs = try Certificates()
        let server = try tlsServer(certs)
        #expect(server.url.hasPrefix("https://127.0.0.1:"))
        var alice = try user("alice", server, certs)
        var bob = try user("bob", server, certs)
        try alice.register(name: "Alice")
        try bob.register(name: "Bob")
        let login = try alice.run(["login", alice.email, "--password-stdin"], stdin: "password123\n")
        #expect(login.code == 0, "\(login.err)")

        bob.extraEnvironment["NEXUS_DEBUG_TLS"] = "1"
        let (tail, out, err) = try bob.spawn(["tail", "-f", "--json"])
        defer { tail.terminate() }
        #expect(try alice.run(["send", bob.email, "live 1"]).code == 0)
        #expect(out.wait { _ in self.texts(out).count == 1 }, "tail -f over HTTPS: \(out.text) \(err.text)")

        // Queued while the server is away, then one flush over one kept-alive connection.
        let away = alice.server
        alice.server = "https://127.0.0.1:1"
        let queued = try alice.queueOffline(150, to: bob.email, prefix: "q")
        #expect(queued.count == 150)
        alice.server = away
        alice.extraEnvironment["NEXUS_DEBUG_TLS"] = "1"
        let flush = try alice.run(["queue", "flush", "--now"])
        #expect(flush.code == 0, "\(flush.err)")
        #expect(flush.out.contains("sent 150"), "\(flush.out)")
        let handshakes = flush.err.split(separator: "\n").filter { $0.hasPrefix("tls: ") }
        #expect(handshakes.count == 1, "a queue flush should keep one connection: \(flush.err)")

        let expected = ["live 1"] + (1...150).map { "q \($0)" }
        #expect(out.wait(timeout: 20) { _ in self.texts(out).count >= expected.count }, "tail saw \(texts(out).count)")
        #expect(texts(out) == expected)
        #expect(try bob.serverMessages().map(\.text) == expected)
        // The whole tail -f, its long polls and receipts, went over one connection.
        #expect(err.lines.filter { $0.hasPrefix("tls: ") }.count == 1, "\(err.text)")
    }

    // 2. Unknown CA, expired certificate, wrong host name: each its own error and exit code 7;
    //    the message stays queued and says why; once fixed, one flush delivers each once.
    @Test func trustFailuresKeepTheMessageQueuedUntilFixed() throws {
        let certs = try Certificates()
        let server = try tlsServer(certs)
        let alice = try user("alice", server, certs)
        let bob = try user("bob", server, certs)
        try alice.register(name: "Alice")
        try bob.register(name: "Bob")
        #expect(try alice.run(["send", bob.email, "first"]).code == 0)

        var untrusting = alice
        untrusting.extraEnvironment["NEXUS_CACERT"] = nil
        let unknown = try untrusting.run(["send", bob.email, "unknown issuer"])
        #expect(unknown.code == 7, "\(unknown.err)")
        #expect(unknown.err.contains("issuer is unknown") && unknown.err.contains("--cacert"), "\(unknown.err)")

        try certs.serve("expired")
        #expect(hangUp(server, expecting: "reloaded the TLS certificate", count: 1))
        let expired = try alice.run(["send", bob.email, "expired"])
        #expect(expired.code == 7, "\(expired.err)")
        #expect(expired.err.contains("certificate has expired"), "\(expired.err)")

        try certs.serve("wronghost")
        #expect(hangUp(server, expecting: "reloaded the TLS certificate", count: 2))
        let wrongHost = try alice.run(["send", bob.email, "wrong host"])
        #expect(wrongHost.code == 7, "\(wrongHost.err)")
        #expect(wrongHost.err.contains("is not for '127.0.0.1'"), "\(wrongHost.err)")

        // Still queued, and `queue` says why they wait.
        let queue = try alice.run(["queue"])
        #expect(queue.out.contains("certificate"), "\(queue.out)")
        let entries = try #require(try alice.run(["queue", "--json"]).json() as? [[String: Any]])
        #expect(entries.count == 3)
        #expect(entries.allSatisfy { $0["status"] as? String == "queued" })
        // A flush against the broken server says so too, with the same exit code.
        let refused = try alice.run(["queue", "flush", "--now"])
        #expect(refused.code == 7, "\(refused.err)")

        try certs.serve("server")
        #expect(hangUp(server, expecting: "reloaded the TLS certificate", count: 3))
        let flush = try alice.run(["queue", "flush", "--now"])
        #expect(flush.code == 0, "\(flush.err)")
        #expect(try bob.serverMessages().map(\.text) == ["first", "unknown issuer", "expired", "wrong host"])
    }

    // 3. Plain http:// to a host that is not loopback: refused before any connection.
    @Test func plainHTTPToANonLoopbackHostIsRefusedBeforeConnecting() throws {
        let carol = try User("carol", server: "http://nexus.invalid:8787")
        let refused = try carol.run(["login", carol.email, "--password-stdin"], stdin: "password123\n")
        #expect(refused.code == 7, "\(refused.err)")
        #expect(refused.err.contains("in the clear") && refused.err.contains("--allow-plain-http"), "\(refused.err)")
        // Allowed, it does try: and fails to resolve, which shows the refusal came first.
        let allowed = try carol.run(["login", carol.email, "--password-stdin", "--allow-plain-http"], stdin: "password123\n")
        #expect(allowed.code == 75, "\(allowed.err)")
        #expect(allowed.err.contains("resolve nexus.invalid"), "\(allowed.err)")
        // The config line does the same.
        let config = carol.home + "/no-config/nexus"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try "allow-plain-http = yes\n".write(toFile: config + "/config", atomically: true, encoding: .utf8)
        #expect(try carol.run(["login", carol.email, "--password-stdin"], stdin: "password123\n").code == 75)
        try FileManager.default.removeItem(atPath: config + "/config")

        // A logged-in person pointed there keeps the message, and the token stays home.
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        var moved = alice
        moved.server = "http://nexus.invalid:8787"
        let send = try moved.run(["send", bob.email, "kept"])
        #expect(send.code == 7, "\(send.err)")
        let entries = try #require(try moved.run(["queue", "--json"]).json() as? [[String: Any]])
        #expect(entries.map { $0["text"] as? String } == ["kept"])
        // Loopback stays plain and quiet.
        let home = try alice.run(["queue", "flush"])
        #expect(home.code == 0 && home.err.isEmpty, "\(home.err)")
    }

    // 4. SIGHUP with a new certificate while tail -f is connected and sends go on.
    @Test func certificateRotationKeepsTheTailWholeAndServesTheNewCertificate() throws {
        let certs = try Certificates()
        let server = try tlsServer(certs)
        let alice = try user("alice", server, certs)
        let bob = try user("bob", server, certs)
        try alice.register(name: "Alice")
        try bob.register(name: "Bob")
        #expect(try servedSubject(server, certs) == "subject=CN = server")

        let (tail, out, err) = try bob.spawn(["tail", "-f", "--json"])
        defer { tail.terminate() }
        for i in 1...5 { #expect(try alice.run(["send", bob.email, "m \(i)"]).code == 0) }
        #expect(out.wait { _ in self.texts(out).count == 5 }, "\(err.text)")

        try certs.serve("rotated")
        #expect(hangUp(server, expecting: "reloaded the TLS certificate", count: 1), "\(server.log.text)")
        for i in 6...10 { #expect(try alice.run(["send", bob.email, "m \(i)"]).code == 0) }
        #expect(try servedSubject(server, certs) == "subject=CN = rotated")

        // A broken pair (the key of another certificate) is refused; the rotated one stays.
        try certs.serve("server", key: "rotated")
        #expect(hangUp(server, expecting: "refused the new TLS certificate", count: 1), "\(server.log.text)")
        #expect(try servedSubject(server, certs) == "subject=CN = rotated")
        for i in 11...15 { #expect(try alice.run(["send", bob.email, "m \(i)"]).code == 0) }

        #expect(out.wait(timeout: 15) { _ in self.texts(out).count >= 15 }, "\(out.text) \(err.text)")
        #expect(texts(out) == (1...15).map { "m \($0)" })
        #expect(tail.isRunning)
    }

    // 5. An independent client: curl with the CA; TLS 1.0 and 1.1 refused, 1.2 and 1.3 served.
    @Test func curlTrustsItAndOldProtocolsAreRefused() throws {
        let certs = try Certificates()
        let server = try tlsServer(certs)
        let curl = try runTool("curl", ["-sS", "--cacert", certs.ca, "https://localhost:\(server.port)/healthz"])
        #expect(curl.code == 0, "\(curl.err)")
        #expect(curl.out.contains("\"ok\""), "\(curl.out)")
        let untrusted = try runTool("curl", ["-sS", "https://127.0.0.1:\(server.port)/healthz"])
        #expect(untrusted.code == 60, "curl without the CA: \(untrusted.code) \(untrusted.err)")
        func handshake(_ version: String) throws -> Int32 {
            let level = version.hasPrefix("-tls1_2") || version == "-tls1_3" ? "" : " -cipher DEFAULT@SECLEVEL=0"
            return try runTool("/bin/sh", [
                "-c", "openssl s_client -connect 127.0.0.1:\(server.port) \(version)\(level) -CAfile \(certs.ca) -verify_return_error </dev/null",
            ]).code
        }
        #expect(try handshake("-tls1") != 0)
        #expect(try handshake("-tls1_1") != 0)
        #expect(try handshake("-tls1_2") == 0)
        #expect(try handshake("-tls1_3") == 0)
        // TLS 1.2 suites are AEAD only: a CBC suite is refused (LUCKY13, docs/tls.md).
        #expect(try handshake("-tls1_2 -cipher ECDHE-RSA-AES128-SHA") != 0)
        #expect(try handshake("-tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256") == 0)
    }

    // 7. The session is kept 0600 under the profile, and the next process resumes it.
    @Test func theNextProcessResumesTheSessionKeptUnderTheProfile() throws {
        let certs = try Certificates()
        let server = try tlsServer(certs)
        var alice = try user("alice", server, certs)
        alice.extraEnvironment["NEXUS_DEBUG_TLS"] = "1"
        let register = try alice.run(["register", alice.email, "--password-stdin"], stdin: "password123\n")
        #expect(register.code == 0, "\(register.err)")
        #expect(register.err.contains("TLSv1.3 full handshake"), "\(register.err)")
        let profile = alice.home + "/default"
        let files = try FileManager.default.contentsOfDirectory(atPath: profile).filter { $0.hasPrefix("tls-session-") }
        #expect(files.count == 1, "\(files)")
        // The server's certificate is left out of the saved session (decoding it cost every
        // resumed command ~0.25 ms): its DER is nowhere in the file.
        let pem = try String(contentsOfFile: certs.directory + "/server.pem", encoding: .utf8)
        let base64 = pem.split(separator: "\n").drop { !$0.hasPrefix("-----BEGIN") }.dropFirst().prefix { !$0.hasPrefix("-----END") }.joined()
        let certificate = try #require(Data(base64Encoded: base64))
        for file in files {
            let mode = try FileManager.default.attributesOfItem(atPath: profile + "/" + file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file): \(String(mode ?? 0, radix: 8))")
            let saved = try Data(contentsOf: URL(fileURLWithPath: profile + "/" + file))
            #expect(saved.range(of: certificate.prefix(64)) == nil, "\(file) holds the server's certificate")
        }
        let whoami = try alice.run(["whoami"])
        #expect(whoami.code == 0, "\(whoami.err)")
        #expect(whoami.err.contains("resumed"), "\(whoami.err)")
        // Another CA file is another trust decision: no resumption across it.
        alice.extraEnvironment["NEXUS_CACERT"] = certs.directory + "/server.pem"
        let other = try alice.run(["whoami"])
        #expect(!other.err.contains("resumed"), "\(other.err)")
    }

    // --cacert and the config's `cacert =` line are the other two ways to name the CA.
    @Test func cacertFlagAndConfigLineTrustTheCA() throws {
        let certs = try Certificates()
        let server = try tlsServer(certs)
        let dana = try User("dana", server: server.url)
        let refused = try dana.run(["register", dana.email, "--password-stdin"], stdin: "password123\n")
        #expect(refused.code == 7, "\(refused.err)")
        let flag = try dana.run(["register", dana.email, "--password-stdin", "--cacert", certs.ca], stdin: "password123\n")
        #expect(flag.code == 0, "\(flag.err)")
        let config = dana.home + "/no-config/nexus"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try "cacert = \(certs.ca)\n".write(toFile: config + "/config", atomically: true, encoding: .utf8)
        let whoami = try dana.run(["whoami"])
        #expect(whoami.code == 0, "\(whoami.err)")
        let missing = try dana.run(["whoami", "--cacert", certs.directory + "/absent.pem"])
        #expect(missing.code == 7 && missing.err.contains("absent.pem"), "\(missing.err)")
    }

    // nexusctl refuses a server that offers nothing newer than TLS 1.1.
    @Test func aServerBelowTLS12IsAHandshakeFailure() throws {
        let certs = try Certificates()
        let port = try #require(Int(try runTool("python3", ["-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"]).out.trimmingCharacters(in: .whitespacesAndNewlines)))
        let old = Process()
        old.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        old.arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0",
                         "-cert", certs.directory + "/server.pem", "-key", certs.directory + "/server.key", "-www", "-quiet"]
        old.standardOutput = FileHandle.nullDevice
        old.standardError = FileHandle.nullDevice
        try launch(old) {}
        // SIGKILL: s_server may inherit a mask that blocks SIGTERM (a libdispatch worker's),
        // and then outlives the test.
        defer {
            kill(old.processIdentifier, SIGKILL)
            old.waitUntilExit()
        }
        var eve = try User("eve", server: "https://127.0.0.1:\(port)")
        eve.extraEnvironment["NEXUS_CACERT"] = certs.ca
        var r = try eve.run(["login", eve.email, "--password-stdin"], stdin: "password123\n")
        for _ in 0..<20 where r.code == 75 {
            Thread.sleep(forTimeInterval: 0.1)  // s_server still starting
            r = try eve.run(["login", eve.email, "--password-stdin"], stdin: "password123\n")
        }
        #expect(r.code == 7, "\(r.err)")
        #expect(r.err.contains("TLS handshake") && r.err.contains("protocol version"), "\(r.err)")
    }

    // tail -f reconnects over TLS after a restart without losing or repeating anything.
    @Test func tailFollowReconnectsOverTLSWithoutSkipsOrRepeats() throws {
        let certs = try Certificates()
        let server = try tlsServer(certs)
        let alice = try user("alice", server, certs)
        let bob = try user("bob", server, certs)
        try alice.register(name: "Alice")
        try bob.register(name: "Bob")
        #expect(try alice.run(["send", bob.email, "one"]).code == 0)
        let (tail, out, _) = try bob.spawn(["tail", "-f", "--json"])
        defer { tail.terminate() }
        #expect(out.wait { _ in self.texts(out).count == 1 })
        let port = server.port
        server.stop()
        let restarted = try tlsServer(certs, directory: server.directory, port: port)
        defer { restarted.stop() }
        #expect(try alice.run(["send", bob.email, "two"]).code == 0)
        #expect(out.wait(timeout: 15) { _ in self.texts(out).count >= 2 }, "after restart: \(out.text)")
        #expect(texts(out) == ["one", "two"])
    }

    // OpenSSL is loaded by the commands that speak HTTPS only: a plain-HTTP command does
    // not pay its ~3 million instructions of dynamic linking at start (docs/benchmarks.md).
    @Test func onlyACommandThatSpeaksHTTPSLoadsOpenSSL() throws {
        let certs = try Certificates()
        let tls = try tlsServer(certs)
        let plain = try TestServer()
        var overTLS = try user("alice", tls, certs)
        var overHTTP = try User("bob", server: plain.url)
        try overTLS.register(name: "Alice")
        try overHTTP.register(name: "Bob")
        let carol = try User("carol", server: plain.url)
        try carol.register(name: "Carol")
        overTLS.extraEnvironment["LD_DEBUG"] = "files"
        overHTTP.extraEnvironment["LD_DEBUG"] = "files"
        let secure = try overTLS.run(["users"])
        #expect(secure.code == 0)
        #expect(secure.err.contains("libssl.so.3"), "HTTPS should load OpenSSL: \(secure.err.suffix(500))")
        for args in [["users"], ["--version"], ["send", carol.email, "plain"]] {
            let r = try overHTTP.run(args)
            #expect(r.code == 0, "\(args)")
            #expect(!r.err.contains("libssl") && !r.err.contains("libcrypto"), "\(args) loaded OpenSSL over plain HTTP")
        }
    }
}
