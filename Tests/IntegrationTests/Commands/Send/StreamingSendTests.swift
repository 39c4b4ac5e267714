import Foundation
import NexusCore
import Testing

/// `send --each-line` on a pipe that never ends ("Streaming stdin"): each line is
/// queued as it arrives and delivered at once over one kept-alive connection; a kill -9 of
/// nexusd loses and repeats nothing; SIGINT and SIGTERM queue every line read first.
@Suite(.serialized) struct StreamingSendTests {
    /// `send --each-line --json` with a stdin pipe the test writes to, line by line.
    final class Streamer {
        let process = Process()
        let input: Pipe
        let out = LineCollector(), err = LineCollector()

        init(_ user: User, _ args: [String]) throws {
            process.executableURL = URL(fileURLWithPath: Binaries.nexusctl)
            process.arguments = args
            process.environment = user.environment
            // Locals for the closure: self is not whole until the pipe is stored.
            let (process, out, err) = (process, out, err)
            input = try launch(process) {
                let input = Pipe(), outPipe = Pipe(), errPipe = Pipe()
                process.standardInput = input
                process.standardOutput = outPipe
                process.standardError = errPipe
                out.attach(outPipe)
                err.attach(errPipe)
                return input
            }
        }

        func write(_ text: String) { input.fileHandleForWriting.write(Data(text.utf8)) }

        func finish() -> Int32 {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
            return process.terminationStatus
        }

        /// The sockets the process holds open, by inode.
        var sockets: [String] {
            let dir = "/proc/\(process.processIdentifier)/fd"
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/" + $0) }
                .filter { $0.hasPrefix("socket:") }.sorted()
        }
    }

    /// When each text first appeared in a `tail -f --json`'s output, watched every 10 ms.
    final class PrintTimes: @unchecked Sendable {
        private let lock = NSLock()
        private var times: [String: Date] = [:]
        private var stopped = false

        func watch(_ out: LineCollector) {
            Thread.detachNewThread {
                while true {
                    let now = Date()
                    let texts = jsonLines(out.text).compactMap { $0["text"] as? String }
                    self.lock.lock()
                    for t in texts where self.times[t] == nil { self.times[t] = now }
                    let done = self.stopped
                    self.lock.unlock()
                    if done { return }
                    Thread.sleep(forTimeInterval: 0.01)
                }
            }
        }

        subscript(text: String) -> Date? {
            lock.lock()
            defer { lock.unlock() }
            return times[text]
        }

        func stop() {
            lock.lock()
            stopped = true
            lock.unlock()
        }
    }

    @Test func aLineEvery200msReachesTheTailWithinASecondAndAKill9LosesAndRepeatsNothing() throws {
        var server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["new", bob.email]).code == 0)
        let (tail, tailOut, tailErr) = try bob.spawn(["tail", "-f", "--json", "-n", "0"])
        defer { tail.terminate() }
        Thread.sleep(forTimeInterval: 0.5)
        let printed = PrintTimes()
        printed.watch(tailOut)
        defer { printed.stop() }

        let stream = try Streamer(alice, ["send", bob.email, "--each-line", "--json"])
        var written: [(text: String, at: Date)] = []
        var socketsBeforeKill: [[String]] = []
        var downFrom = Date.distantFuture, upAgain = Date.distantFuture
        for i in 1...50 {
            let text = "line \(i) of the stream"
            written.append((text, Date()))
            stream.write(text + "\n")
            Thread.sleep(forTimeInterval: 0.2)
            if (5...20).contains(i) { socketsBeforeKill.append(stream.sockets) }
            if i == 20 {
                downFrom = Date()
                server.kill9()
            }
            if i == 25 {
                server = try TestServer(directory: server.directory, port: server.port)
                upAgain = Date()
            }
        }
        let code = stream.finish()
        #expect(code == 0, "\(stream.err.text)")
        #expect(tailOut.wait(timeout: 15) { _ in written.allSatisfy { printed[$0.text] != nil } }, "\(tailErr.text)")

        // Each line while the server was up is printed within a second of its writing; not
        // those that may have been in flight at the kill, nor those in the tail's own
        // reconnect after the restart (both still checked for loss and repeats below).
        for (text, at) in written where at < downFrom.addingTimeInterval(-1) || at > upAgain.addingTimeInterval(3) {
            let delay = printed[text].map { $0.timeIntervalSince(at) } ?? .infinity
            #expect(delay < 1, "\(text) took \(delay) s")
        }
        // Nothing lost, nothing repeated, in order: on the server and in the tail.
        let texts = written.map(\.text)
        #expect(try bob.serverMessages().map(\.text) == texts)
        let tailTexts = jsonLines(tailOut.text).compactMap { $0["text"] as? String }
        #expect(tailTexts == texts)
        // One kept-alive connection while the server stayed up: no socket opened or closed.
        #expect(Set(socketsBeforeKill).count == 1 && socketsBeforeKill.first?.isEmpty == false, "\(socketsBeforeKill)")
        // Every line's status once, as a JSON list, all sent.
        let results = try JSONDecoder().decode([SentJSON].self, from: Data(stream.out.text.utf8))
        #expect(results.count == 50 && Set(results.map(\.localId)).count == 50 && results.allSatisfy { $0.status == "sent" })
        #expect(try alice.outboxEntries().isEmpty)
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalQueuesEveryLineReadWhileTheServerIsDown(_ signal: Int32) throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["new", bob.email]).code == 0)
        server.stop()

        let stream = try Streamer(alice, ["send", bob.email, "--each-line"])
        stream.write("first\nsecond\n")
        Thread.sleep(forTimeInterval: 1.5)
        // The stream keeps reading while nothing can be delivered; the last line has no newline yet.
        stream.write("third\nfourth, cut sh")
        Thread.sleep(forTimeInterval: 0.5)
        kill(stream.process.processIdentifier, signal)
        stream.process.waitUntilExit()
        #expect(stream.process.terminationReason == .uncaughtSignal && stream.process.terminationStatus == signal,
                "\(stream.process.terminationReason.rawValue) \(stream.process.terminationStatus): \(stream.err.text)")
        let texts = ["first", "second", "third", "fourth, cut sh"]
        #expect(try alice.outboxEntries().map(\.text) == texts)
        #expect(stream.err.text.contains("4 message(s) still queued"), "\(stream.err.text)")

        let restarted = try TestServer(directory: server.directory, port: server.port)
        defer { restarted.stop() }
        // --now: the failed attempts gave the lines a backoff.
        #expect(try alice.run(["queue", "flush", "--now"]).code == 0)
        #expect(try bob.serverMessages().map(\.text) == texts)
    }

    @Test func aBadLineStopsTheStreamAfterTheLinesBeforeItWereSent() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let stream = try Streamer(alice, ["send", bob.email, "--each-line"])
        stream.write("fine\n")
        #expect(stream.out.wait { $0.count == 1 }, "\(stream.err.text)")
        stream.write("also fine\nbad\u{0}line\n")
        let code = stream.finish()
        #expect(code == 2)
        #expect(stream.err.text.contains("stdin line 3: message text contains a NUL character"), "\(stream.err.text)")
        #expect(stream.err.text.contains("the 1 line(s) that came before it are queued"), "\(stream.err.text)")
        #expect(try bob.serverMessages().map(\.text) == ["fine"])
        #expect(try alice.outboxEntries().isEmpty)
    }
}
