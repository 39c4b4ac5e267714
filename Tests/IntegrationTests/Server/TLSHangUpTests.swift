import Foundation
import Testing

/// A server that hangs up in the middle of an HTTPS request. OpenSSL writes to the socket
/// with write(), which raises SIGPIPE on a closed connection: nexusctl must not die of it
/// (exit by signal 13, nothing said, the flush lock's holder gone) but keep what it was
/// sending queued and exit 75, as it does over plain HTTP.
@Suite(.harness)
struct TLSHangUpTests {
    /// Completes the TLS handshake, reads a little of the request, and closes the
    /// connection with a reset while the client is still writing its body.
    static let script = #"""
    import socket, ssl, struct, sys
    cert, key, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(16)
    print("ready", flush=True)
    while True:
        connection, _ = listener.accept()
        try:
            tls = context.wrap_socket(connection, server_side=True)
            tls.recv(4096)
            tls.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            tls.close()
        except Exception:
            connection.close()
    """#

    @Test func aServerThatHangsUpMidRequestLeavesTheQueueAndExit75() throws {
        let certs = try makeTempDir("certs")
        let made = try runTool("/bin/bash", [Binaries.root + "/Tests/scripts/make-test-certs.sh", certs])
        #expect(made.code == 0, "\(made.err)")
        var server = try TestServer(extraArguments: ["--tls-cert", certs + "/server.pem", "--tls-key", certs + "/server.key"])
        defer { server.stop() }
        var alice = try User("alice", server: server.url)
        alice.extraEnvironment["NEXUS_CACERT"] = certs + "/ca.pem"
        var bob = try User("bob", server: server.url)
        bob.extraEnvironment["NEXUS_CACERT"] = certs + "/ca.pem"
        try alice.register(name: "Alice")
        try bob.register(name: "Bob")

        // Megabytes queued while nexusd is down, so the flush writes a long body.
        server.stop()
        let line = String(repeating: "x", count: 60_000)
        let texts = (1...60).map { "\($0) \(line)" }
        let queued = try alice.run(["send", bob.email, "--each-line"], stdin: texts.joined(separator: "\n") + "\n")
        #expect(queued.code == 75, "\(queued.err)")

        let dir = try makeTempDir("hangup")
        try Self.script.write(toFile: dir + "/hangup.py", atomically: true, encoding: .utf8)
        let hangUp = Process()
        hangUp.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        hangUp.arguments = ["python3", dir + "/hangup.py", certs + "/server.pem", certs + "/server.key", String(server.port)]
        let ready = LineCollector(), errors = LineCollector()
        try launch(hangUp, out: ready, err: errors)
        #expect(ready.wait { $0.contains("ready") }, "\(errors.text)")
        for _ in 1...3 {
            let flush = try alice.run(["queue", "flush", "--now"])
            #expect(flush.code == 75, "exit \(flush.code): \(flush.err)")
            #expect(!flush.err.isEmpty)
        }
        kill(hangUp.processIdentifier, SIGKILL)  // SIGTERM leaves it blocked in accept() here
        hangUp.waitUntilExit()

        server = try TestServer(
            directory: server.directory, port: server.port,
            extraArguments: ["--tls-cert", certs + "/server.pem", "--tls-key", certs + "/server.key"])
        let flush = try alice.run(["queue", "flush", "--now"])
        #expect(flush.code == 0, "\(flush.err)")
        let got = try bob.serverMessages().map(\.text)
        #expect(got == texts, "\(got.count) of \(texts.count) delivered")
    }
}
