import Foundation
import Testing

/// What a new user hears when the server is not the one they meant: the wrong address, the
/// API's path in the URL, plain HTTP to a TLS port, no account yet, a refused password.
@Suite(.harness)
struct ServerWordsTests {
    @Test func whoamiAgainstAnotherServerIsNotTheSavedSession() throws {
        let server = try TestServer()
        let alice = try User("alice", server: server.url)
        try alice.register(name: "Alice")
        let elsewhere = try alice.run(["--server", "http://127.0.0.1:1", "whoami"])
        #expect(elsewhere.code == 75, "\(elsewhere.out) \(elsewhere.err)")
        #expect(elsewhere.out.isEmpty && elsewhere.err.contains("the saved session is for \(server.url)"), "\(elsewhere.err)")
        server.stop()
        // Its own server down: the saved session, said to be so.
        let own = try alice.run(["whoami"])
        #expect(own.code == 0 && own.out.contains("alice@example.com") && own.err.contains("offline"), "\(own.out) \(own.err)")
    }

    @Test func theAPIPathInAServerURLIsNamed() throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try User("alice", server: server.url + "/v1")
        let r = try alice.run(["register", alice.email, "--password-stdin"], stdin: "password123\n")
        #expect(r.code == 2, "\(r.err)")
        #expect(r.err.contains("ends in the API's path /v1, which nexusctl adds itself; use \(server.url)"), "\(r.err)")
    }

    @Test func notLoggedInNamesRegisterToo() throws {
        let server = try TestServer()
        defer { server.stop() }
        let r = try User("alice", server: server.url).run(["convos"])
        #expect(r.code == 4 && r.err.contains("nexusctl register <email>"), "\(r.err)")
    }

    @Test func plainHTTPToATLSPortSuggestsHTTPS() throws {
        let certs = try makeTempDir("certs")
        #expect(try runTool("/bin/bash", [Binaries.root + "/Tests/scripts/make-test-certs.sh", certs]).code == 0)
        let server = try TestServer(extraArguments: ["--tls-cert", certs + "/server.pem", "--tls-key", certs + "/server.key"])
        defer { server.stop() }
        let plain = "http://127.0.0.1:\(server.port)"
        let r = try User("alice", server: plain).run(["register", "alice@example.com", "--password-stdin"], stdin: "password123\n")
        #expect(r.code == 75, "\(r.err)")
        #expect(r.err.contains("if that port speaks HTTPS, use https://127.0.0.1:\(server.port)"), "\(r.err)")
    }

    /// At a real terminal: a password under 8 characters is refused as soon as it is typed,
    /// and asked for again, rather than after typing it twice and then ending the command.
    @Test func aRefusedPasswordIsAskedForAgainAtOnce() throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try User("alice", server: server.url)
        let dir = try makeTempDir("pty")
        try Self.typist.write(toFile: dir + "/type.py", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", dir + "/type.py", Binaries.nexusctl, "register", alice.email, "--name", "Alice"]
        process.environment = alice.environment
        let r = try runToEnd(process, stdin: nil)
        #expect(r.code == 0, "\(r.out) \(r.err)")
        let screen = r.out
        let refused = try #require(screen.range(of: "at least 8 characters; try again."), "\(screen)")
        #expect(!screen[..<refused.lowerBound].contains("Password again"), "asked twice before refusing: \(screen)")
        #expect(screen.contains("Registered and logged in"), "\(screen)")
    }

    /// Runs nexusctl on a pseudo-terminal and types at its prompts: a short password, then
    /// a good one twice. Prints the screen; exits with nexusctl's status.
    static let typist = #"""
    import os, pty, signal, sys, termios, time
    # A prompt that never comes fails the test instead of hanging it (the default action,
    # since a test runner may hand its children SIGALRM ignored).
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(30)
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.argv[1], sys.argv[1:])
    screen, seen = b"", 0
    def until(word):
        """Reads until `word` shows after what was already matched."""
        global screen, seen
        while word not in screen[seen:]:
            try:
                chunk = os.read(fd, 1024)
            except OSError:
                chunk = b""
            if not chunk:
                sys.stdout.write(screen.decode(errors="replace")); sys.exit(99)
            screen += chunk
        seen = screen.index(word, seen) + len(word)
    def answer(prompt, text):
        until(prompt)
        # Typed only once echo is off: turning it off flushes what was typed before.
        while termios.tcgetattr(fd)[3] & termios.ECHO:
            time.sleep(0.01)
        os.write(fd, text)
    answer(b"Password: ", b"short\n")
    until(b"try again.")
    answer(b"Password: ", b"longenough1\n")
    answer(b"Password again: ", b"longenough1\n")
    while True:
        try:
            chunk = os.read(fd, 1024)
        except OSError:
            break
        if not chunk: break
        screen += chunk
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(screen.decode(errors="replace"))
    sys.exit(os.waitstatus_to_exitcode(status))
    """#
}
